import { Type, type Static } from 'typebox';
import { Pagination } from '../../http/common.schemas.ts';

/** At most this many operations in one adjustment, all lists together (api-details 7). */
export const MAX_OPERATIONS = 50;
/** No stock above this: far beyond any real count, well inside the integer column. */
export const MAX_STOCK = 1_000_000_000;

export const InventoryItem = Type.Object({
  variantId: Type.String(),
  sku: Type.String(),
  descriptor: Type.String({
    description:
      "the product name, then the variant's attribute values in the product's variantAttributes order in square brackets: `Tee [Red, L]`",
  }),
  isUnlimited: Type.Boolean(),
  quantity: Type.Integer({ description: 'the stock; 0 while isUnlimited' }),
});

export const InventoryPage = Type.Object({ inventory: Type.Array(InventoryItem), pagination: Pagination });

export const InventoryById = Type.Object({ inventory: Type.Array(InventoryItem) });

export const InventoryQuery = Type.Object({ cursor: Type.Optional(Type.String()) });

export const VariantIdsParams = Type.Object({
  variantIds: Type.String({ description: 'one variant id or a comma-separated list of at most 50' }),
});

const VariantId = Type.String({ minLength: 1, maxLength: 100, description: 'a variant id' });

const operations = (minimum: number, description: string) =>
  Type.Optional(
    Type.Array(
      Type.Object({ variantId: VariantId, quantity: Type.Integer({ minimum, maximum: MAX_STOCK }) }),
      { maxItems: MAX_OPERATIONS, description },
    ),
  );

export const AdjustmentsBody = Type.Object({
  incrementOperations: operations(1, 'adds quantity to a counted stock'),
  decrementOperations: operations(1, 'takes quantity from a counted stock; never below zero'),
  setFiniteOperations: operations(0, 'sets a counted stock of quantity, also on an unlimited variant'),
  setUnlimitedOperations: Type.Optional(
    Type.Array(VariantId, { maxItems: MAX_OPERATIONS, description: 'makes the stock unlimited' }),
  ),
});

export const AdjustmentHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description:
      'a new key for each adjustment, 1 to 64 letters, digits, `-` or `_`; resending it with the same body within 48 hours answers 204 again without applying twice',
  }),
});

export type AdjustmentsInput = Static<typeof AdjustmentsBody>;
export type InventoryItemT = Static<typeof InventoryItem>;
