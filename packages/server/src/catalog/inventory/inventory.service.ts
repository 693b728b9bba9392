import type { Db } from '../../db/database.ts';
import { findKey, KEY_KEPT_MS, tryLockKey } from '../../db/idempotency-keys.ts';
import { Conflict, NotFound, ValidationError } from '../../shared/errors.ts';
import type { Credential } from '../../http/credential.ts';
import type { CursorCodec } from '../../pagination/cursor.ts';
import { nextStock, operationsDigest, parseOperations, type Operation } from './inventory-operations.ts';
import * as repo from './inventory.repo.ts';
import type { AdjustmentsInput, InventoryItemT } from './inventory.schemas.ts';
import { changeProducts } from '../product-changes.ts';
import type { CatalogDeps } from '../products.service.ts';

const PAGE_SIZE = 50;
const MAX_IDS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function toItem(row: repo.InventoryRow): InventoryItemT {
  const values = row.variant_attributes.map((name) => row.attributes[name] ?? '');
  const descriptor = values.length ? `${row.product_name} [${values.join(', ')}]`.trim() : row.product_name;
  return {
    variantId: row.id,
    sku: row.sku,
    descriptor,
    isUnlimited: row.stock_unlimited,
    quantity: row.stock_quantity,
  };
}

interface InventoryCursor {
  w: string;
  i: string;
}

/** A page of the website's inventory in variant id order, which writes never reorder. */
export async function inventoryPage(
  deps: { db: Db; cursors: CursorCodec },
  websiteId: string,
  cursor: string | undefined,
): Promise<{ inventory: InventoryItemT[]; nextCursor: string | null }> {
  let after: string | undefined;
  if (cursor) {
    const position = deps.cursors.decode<InventoryCursor>('inventory', cursor);
    if (position.w !== websiteId || !UUID.test(String(position.i))) {
      throw new ValidationError('cursor: not a cursor returned by this API');
    }
    after = position.i;
  }
  const rows = await repo.selectInventoryPage(deps.db, websiteId, after, PAGE_SIZE + 1);
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > PAGE_SIZE && last
      ? deps.cursors.encode('inventory', { w: websiteId, i: last.id } satisfies InventoryCursor)
      : null;
  return { inventory: page.map(toItem), nextCursor };
}

/** Variants by id, in the order asked; any id missing (or of another website) is a 404, as products. */
export async function inventoryOf(
  deps: { db: Db },
  websiteId: string,
  ids: string[],
): Promise<InventoryItemT[]> {
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw new ValidationError('variantIds: one or more variant ids, comma-separated');
  const wanted = ids.map((id) => id.toLowerCase());
  const unique = [...new Set(wanted)];
  if (unique.length > MAX_IDS) throw new ValidationError(`variantIds: at most ${MAX_IDS} ids a request`);
  const rows = await repo.selectInventory(
    deps.db,
    websiteId,
    unique.filter((id) => UUID.test(id)),
  );
  const found = new Map(rows.map((row) => [row.id, toItem(row)]));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw new NotFound(`variant not found: ${missing}`, 'PRODUCT_VARIANT_NOT_FOUND');
  return wanted.map((id) => found.get(id)!);
}

/**
 * Who an idempotency key belongs to: the API key, or the OAuth app (whichever of its tokens
 * sends it). Prefixed, so an API key id and a client id can never be taken for each other.
 */
export function callerOf(credential: Credential): string {
  return credential.kind === 'api_key' ? `key:${credential.id}` : `client:${credential.clientId}`;
}

function variantNotFound(op: Operation): NotFound {
  return new NotFound(`${op.field}: variant not found: ${op.variantId}`, 'PRODUCT_VARIANT_NOT_FOUND');
}

/**
 * Applies an inventory adjustment atomically (api-details 7), at most once per idempotency key.
 *
 * In one transaction: the key's advisory lock is tried first, so a second request with a key
 * still running answers 409 at once rather than waiting; then a key applied in the last 48 hours
 * answers as the first time (same body) or 400 (another body), without touching the stock. Else
 * the key is kept, the products of the variants are locked in id order, then the variants, every
 * operation is checked, the stock written, and the changed products notified and stamped. Any
 * refusal rolls all of it back, the key included, so a corrected request may reuse the key.
 */
export async function adjustInventory(
  deps: CatalogDeps,
  request: { websiteId: string; caller: string; key: string },
  body: AdjustmentsInput,
): Promise<'applied' | 'replayed'> {
  const operations = parseOperations(body);
  const digest = operationsDigest(operations);
  const { websiteId, caller, key } = request;
  const announce = await deps.db.transaction().execute(async (trx) => {
    const keyRow = { website_id: websiteId, caller, key };
    if (!(await tryLockKey(trx, 'inventory_adjustment_keys', keyRow))) {
      throw new Conflict(
        'Idempotency-Key: an adjustment with this key is still running; retry once it has finished',
        'CONCURRENT_MODIFICATION',
      );
    }
    const since = new Date(deps.clock.now(websiteId).getTime() - KEY_KEPT_MS);
    const earlier = await findKey(trx, 'inventory_adjustment_keys', keyRow, since);
    if (earlier) {
      if (earlier.request_digest.equals(digest)) return undefined;
      throw new ValidationError(
        'Idempotency-Key: this key was used with another body in the last 48 hours; use a new key for another adjustment',
      );
    }

    const ids = operations.map((op) => op.variantId).filter((id) => UUID.test(id));
    const owners = await repo.variantProducts(trx, websiteId, ids);
    const unknown = operations.find((op) => !owners.has(op.variantId));
    if (unknown) throw variantNotFound(unknown);

    // Kept before the change: a refusal below rolls it back too, and the change is stamped last.
    await repo.saveKey(trx, { ...keyRow, request_digest: digest, created_at: deps.clock.now(websiteId) });
    const { announce } = await changeProducts(trx, deps, websiteId, [...owners.values()], async () => {
      // Locked after their products; one deleted meanwhile is gone from here as well.
      const variants = new Map((await repo.lockVariants(trx, websiteId, ids)).map((v) => [v.id, v]));
      const writes: repo.LockedVariant[] = [];
      for (const op of operations) {
        const variant = variants.get(op.variantId);
        if (!variant) throw variantNotFound(op);
        const next = nextStock(op, variant.sku, variant);
        if (
          next.stock_quantity !== variant.stock_quantity ||
          next.stock_unlimited !== variant.stock_unlimited
        ) {
          writes.push({ ...variant, ...next });
        }
      }
      await repo.updateStock(trx, writes);
      return { changed: writes.map((w) => w.product_id), result: undefined };
    });
    return announce;
  });
  if (!announce) return 'replayed';
  announce();
  return 'applied';
}
