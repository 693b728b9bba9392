/**
 * The eleven scopes of the spec, and the platform's profiles pair (platform-surface 0.7). A write
 * scope implies its `.read` scope (api-details 8).
 */
export const SCOPES = [
  'website.orders',
  'website.orders.read',
  'website.transactions.read',
  'website.profiles',
  'website.profiles.read',
  'website.inventory',
  'website.inventory.read',
  'website.products',
  'website.products.read',
  'website.contacts',
  'website.contacts.read',
  'website.discounts',
  'website.discounts.read',
] as const;

export type Scope = (typeof SCOPES)[number];

/** What each scope lets an app do, in the owner's words (the spec's scope table). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'website.orders': 'Send order data and mark orders fulfilled',
  'website.orders.read': 'View order and fulfillment information',
  'website.transactions.read': 'Access transactional order and donation data',
  'website.profiles': 'View and manage customer profiles',
  'website.profiles.read': 'View customer profiles',
  'website.inventory': 'View and update inventory stock levels',
  'website.inventory.read': 'View inventory stock levels',
  'website.products': 'View product information and modify products',
  'website.products.read': 'View product information',
  'website.contacts': 'View contacts and address book entries; create, update, delete them',
  'website.contacts.read': 'View contacts and address book entries',
  'website.discounts': 'View and manage discounts',
  'website.discounts.read': 'View discounts',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a credential effectively holds: what was granted plus the reads the writes imply. */
export function effectiveScopes(granted: readonly string[]): ReadonlySet<string> {
  const scopes = new Set<string>();
  for (const scope of granted) {
    scopes.add(scope);
    if (isScope(`${scope}.read`)) scopes.add(`${scope}.read`);
  }
  return scopes;
}

/** Parses a comma-separated scope list: whitespace trimmed, duplicates collapsed, every item known. */
export function parseScopeList(list: string): { scopes: Scope[] } | { invalid: string } {
  const items = list.split(',').map((s) => s.trim());
  const scopes = new Set<Scope>();
  for (const item of items) {
    if (!isScope(item)) return { invalid: item };
    scopes.add(item);
  }
  return { scopes: [...scopes] };
}
