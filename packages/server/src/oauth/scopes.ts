/** The eleven scopes of the spec. A write scope implies its `.read` scope (api-details 8). */
export const SCOPES = [
  'website.orders',
  'website.orders.read',
  'website.transactions.read',
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
