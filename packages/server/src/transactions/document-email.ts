import type { Db } from '../db/database.ts';
import type { StoredDocumentT } from './transactions.schemas.ts';

/**
 * Gives the document of this order a new `customerEmail` (the order's buyer's e-mail was
 * changed), in place, under the order's lock: the document's keys keep their order. Returns its
 * id, for the caller to stamp; undefined when the order has none.
 */
export async function setDocumentEmail(
  db: Db,
  websiteId: string,
  orderId: string,
  email: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('transaction_documents')
    .select(['id', 'document'])
    .where('website_id', '=', websiteId)
    .where('order_id', '=', orderId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  // The `json` column is parsed with its keys in the order written, and a spread keeps an
  // existing key where it was.
  const document = { ...(row.document as StoredDocumentT), customerEmail: email };
  await db
    .updateTable('transaction_documents')
    .set({ document: JSON.stringify(document) })
    .where('id', '=', row.id)
    .execute();
  return row.id;
}
