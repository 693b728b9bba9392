import { createHash } from 'node:crypto';
import type { VariantsTable } from '../../db/schema.ts';
import { Conflict, ValidationError } from '../../shared/errors.ts';
import { MAX_OPERATIONS, MAX_STOCK, type AdjustmentsInput } from './inventory.schemas.ts';

/** The rules of one inventory adjustment (api-details 7), apart from the database. */

export type OperationKind = 'increment' | 'decrement' | 'setFinite' | 'setUnlimited';

export interface Operation {
  kind: OperationKind;
  /** Lower-cased, so `A1…` and `a1…` are one variant everywhere, the digest included. */
  variantId: string;
  /** 0 for setUnlimited. */
  quantity: number;
  /** Where the operation is in the body, for messages: `decrementOperations[2]`. */
  at: string;
  /** Where its variant id is: `decrementOperations[2].variantId`, `setUnlimitedOperations[0]`. */
  field: string;
}

export type Stock = Pick<VariantsTable, 'stock_quantity' | 'stock_unlimited'>;

const LISTS = [
  ['incrementOperations', 'increment'],
  ['decrementOperations', 'decrement'],
  ['setFiniteOperations', 'setFinite'],
] as const;

/** The body's operations in body order, checked: 1 to 50 in all, each variant at most once. */
export function parseOperations(body: AdjustmentsInput): Operation[] {
  const operations: Operation[] = [];
  for (const [list, kind] of LISTS) {
    for (const [i, op] of (body[list] ?? []).entries()) {
      const at = `${list}[${i}]`;
      operations.push({
        kind,
        variantId: op.variantId.toLowerCase(),
        quantity: op.quantity,
        at,
        field: `${at}.variantId`,
      });
    }
  }
  for (const [i, id] of (body.setUnlimitedOperations ?? []).entries()) {
    const at = `setUnlimitedOperations[${i}]`;
    operations.push({ kind: 'setUnlimited', variantId: id.toLowerCase(), quantity: 0, at, field: at });
  }
  if (operations.length === 0) {
    throw new ValidationError(
      'body: at least one operation in incrementOperations, decrementOperations, setFiniteOperations or setUnlimitedOperations',
      'MISSING_ARGUMENT',
    );
  }
  if (operations.length > MAX_OPERATIONS) {
    throw new ValidationError(
      `body: at most ${MAX_OPERATIONS} operations in all lists together; this has ${operations.length}`,
    );
  }
  // Two operations on one variant would depend on their order, which the lists do not give.
  const seen = new Map<string, string>();
  for (const op of operations) {
    const first = seen.get(op.variantId);
    if (first !== undefined) {
      throw new ValidationError(
        `${op.field}: variant ${op.variantId} is also in ${first}; a variant may appear once in an adjustment`,
      );
    }
    seen.set(op.variantId, op.field);
  }
  return operations;
}

/**
 * SHA-256 of the adjustment's meaning: each variant appears once, so sorting by variant id gives
 * one canonical form, whatever the order of the lists, of their items or of the JSON keys.
 */
export function operationsDigest(operations: Operation[]): Buffer {
  const canonical = operations
    .map((op) => [op.variantId, op.kind, op.quantity] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(canonical)).digest();
}

/** The stock after the operation, or the reason it cannot apply (409, or 400 above the cap). */
export function nextStock(op: Operation, sku: string, stock: Stock): Stock {
  switch (op.kind) {
    case 'setUnlimited':
      return { stock_quantity: 0, stock_unlimited: true };
    case 'setFinite':
      return { stock_quantity: op.quantity, stock_unlimited: false };
  }
  if (stock.stock_unlimited) {
    throw new Conflict(
      `${op.at}: variant ${op.variantId} (SKU ${sku}) has unlimited stock, which is not counted; set a finite quantity first with setFiniteOperations`,
      'STOCK_NOT_TRACKED',
    );
  }
  if (op.kind === 'decrement') {
    if (op.quantity > stock.stock_quantity) {
      throw new Conflict(
        `${op.at}: variant ${op.variantId} (SKU ${sku}) has ${stock.stock_quantity} in stock; cannot take ${op.quantity}`,
        'INSUFFICIENT_STOCK',
      );
    }
    return { stock_quantity: stock.stock_quantity - op.quantity, stock_unlimited: false };
  }
  const quantity = stock.stock_quantity + op.quantity;
  if (quantity > MAX_STOCK) {
    throw new ValidationError(
      `${op.at}.quantity: the stock of variant ${op.variantId} would be ${quantity}, above the limit of ${MAX_STOCK}`,
    );
  }
  return { stock_quantity: quantity, stock_unlimited: false };
}
