import { isScope, type Scope } from '../shared/scopes.ts';

/**
 * The platform names its API keys' permissions apart from OAuth scopes (platform-surface 0.7):
 * `CONTACT`, `CONTACT_READONLY` [SPEC], `DISCOUNTS`, `DISCOUNTS_READONLY` [SPEC-R]. An operator may
 * paste them wherever a key's scopes are given; the key stores the OAuth name each stands for, so
 * the scope check knows one vocabulary. The platform's names of its other permissions (products,
 * orders, inventory...) are recorded nowhere, so none is guessed here.
 */
export const API_KEY_PERMISSIONS: Readonly<Record<string, Scope>> = {
  CONTACT: 'website.contacts',
  CONTACT_READONLY: 'website.contacts.read',
  DISCOUNTS: 'website.discounts',
  DISCOUNTS_READONLY: 'website.discounts.read',
};

/**
 * Parses the scopes of an API key: OAuth scope names or the platform's key permission names (any
 * case), separated by commas or white space, duplicates collapsed; an unknown item is named back.
 */
export function parseKeyScopes(list: string): { scopes: Scope[] } | { invalid: string } {
  const scopes = new Set<Scope>();
  const items = list.split(/[\s,]+/).filter((item) => item !== '');
  if (items.length === 0) return { invalid: '' };
  for (const item of items) {
    const scope = isScope(item) ? item : API_KEY_PERMISSIONS[item.toUpperCase()];
    if (scope === undefined) return { invalid: item };
    scopes.add(scope);
  }
  return { scopes: [...scopes] };
}
