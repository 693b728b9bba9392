import type { Db } from '../db/database.ts';
import type { EmailKind, EmailsTable } from '../db/emails-schema.ts';
import { opened } from './sealed.ts';

/** The e-mails of a website as the owner pages and the test controls read them. */

export const EMAIL_KINDS: readonly EmailKind[] = [
  'order_confirmation',
  'shipping_notice',
  'cancellation_notice',
  'refund_notice',
];

export interface EmailFilter {
  kind?: EmailKind;
  /** The recipient's address, whatever its case. */
  to?: string;
  orderId?: string;
}

/** The website's e-mails that match, oldest first (or newest first), at most `limit`. */
export async function listEmails(
  db: Db,
  websiteId: string,
  filter: EmailFilter = {},
  options: { limit: number; newestFirst?: boolean } = { limit: 1000 },
): Promise<EmailsTable[]> {
  let query = db.selectFrom('emails').selectAll().where('website_id', '=', websiteId);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.to)
    query = query.where((eb) => eb(eb.fn('lower', ['to_address']), '=', filter.to!.toLowerCase()));
  if (filter.orderId) query = query.where('order_id', '=', filter.orderId);
  const direction = options.newestFirst ? 'desc' : 'asc';
  const rows = await query
    .orderBy('created_on', direction)
    .orderBy('id', direction)
    .limit(options.limit)
    .execute();
  // Sealed ones (a gift card's code) are opened to be read (sealed.ts).
  return Promise.all(rows.map((row) => opened(db, row)));
}

export async function findEmail(db: Db, websiteId: string, id: string): Promise<EmailsTable | undefined> {
  const row = await db
    .selectFrom('emails')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && opened(db, row);
}

/** An e-mail as the test controls answer with it. */
export function emailJson(row: EmailsTable) {
  return {
    id: row.id,
    websiteId: row.website_id,
    kind: row.kind,
    orderId: row.order_id,
    to: row.to_address,
    subject: row.subject,
    html: row.html,
    text: row.text,
    createdOn: row.created_on.toISOString(),
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    sentOn: row.sent_on?.toISOString() ?? null,
  };
}
