import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { StoredDocumentT } from './transactions.schemas.ts';
import type { Window } from '../shared/iso-time.ts';

/** SQL of transaction documents (platform-surface 2.2). */

export interface DocumentRow {
  id: string;
  created_on: Date;
  modified_on: Date;
  voided: boolean;
  /** The `json` column, parsed with its keys in the order they were written. */
  document: StoredDocumentT;
}

export interface DocumentFilter {
  /** The last position seen: the page continues with older changes. */
  before?: { modifiedOn: Date; id: string };
  /** The window (after, before] of modifiedOn. */
  window?: Window;
  orderId?: string;
}

function documents(db: Db, websiteId: string) {
  return db
    .selectFrom('transaction_documents')
    .select(['id', 'created_on', 'modified_on', 'voided', 'document'])
    .where('website_id', '=', websiteId);
}

/**
 * One keyset page, newest change first: (modified_on, id) descending, which the
 * (website_id, modified_on, id) index answers read backwards.
 */
export async function selectDocumentPage(
  db: Db,
  websiteId: string,
  filter: DocumentFilter,
  limit: number,
): Promise<DocumentRow[]> {
  let page = documents(db, websiteId).orderBy('modified_on', 'desc').orderBy('id', 'desc').limit(limit);
  const { before, window, orderId } = filter;
  if (before) page = page.where(sql<boolean>`(modified_on, id) < (${before.modifiedOn}, ${before.id}::uuid)`);
  if (window) page = page.where('modified_on', '>', window.after).where('modified_on', '<=', window.before);
  if (orderId !== undefined) page = page.where('order_id', '=', orderId);
  return (await page.execute()) as DocumentRow[];
}

/** These documents of the website; `ids` must be UUIDs. */
export async function selectDocuments(db: Db, websiteId: string, ids: string[]): Promise<DocumentRow[]> {
  if (ids.length === 0) return [];
  return (await documents(db, websiteId)
    .where(sql<boolean>`id = any(${ids}::uuid[])`)
    .execute()) as DocumentRow[];
}

/**
 * Marks the document of this order voided (its order was canceled); the stored document is not
 * rewritten, `voided` is read from the column. Returns its id, for the caller to stamp.
 */
export async function voidOrderDocument(
  db: Db,
  websiteId: string,
  orderId: string,
): Promise<string | undefined> {
  const row = await db
    .updateTable('transaction_documents')
    .set({ voided: true })
    .where('website_id', '=', websiteId)
    .where('order_id', '=', orderId)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The document of this order, for a change made under the order's lock. */
export async function selectOrderDocument(
  db: Db,
  websiteId: string,
  orderId: string,
): Promise<DocumentRow | undefined> {
  return (await documents(db, websiteId).where('order_id', '=', orderId).executeTakeFirst()) as
    DocumentRow | undefined;
}

/** Writes the document's JSON back (its keys in the order given). */
export async function updateDocument(db: Db, id: string, document: StoredDocumentT): Promise<void> {
  await db
    .updateTable('transaction_documents')
    .set({ document: JSON.stringify(document) })
    .where('id', '=', id)
    .execute();
}
