import type { Db } from '../db/database.ts';
import type { EmailKind, EmailsTable } from '../db/emails-schema.ts';
import type { Jobs } from '../jobs/queue.ts';
import type { Clock } from '../shared/clock.ts';
import type { Ids } from '../shared/ids.ts';
import type { EmailSettings } from './email-settings.ts';
import { seal, SEALED_NOTE } from './sealed.ts';
import { renderOrderEmail, type EmailNews, type OrderForEmail } from './templates.ts';

export interface EmailDeps {
  clock: Clock;
  ids: Ids;
  jobs: Jobs;
  emails: EmailSettings;
}

export interface OrderEmail {
  websiteId: string;
  kind: EmailKind;
  orderId: string;
  /** The buyer's address. */
  to: string;
  order: Omit<OrderForEmail, 'storeName'>;
  /** For a shipping notice, its shipments; for a refund notice, the amount. */
  news?: EmailNews;
}

/**
 * Writes the e-mail in the caller's transaction, the one of the change it tells of (the order
 * placed, fulfilled, canceled): it exists exactly when the change commits. With SMTP configured,
 * its first attempt is queued in the same transaction; returns whether one was, and the caller
 * wakes the e-mail workers (jobs.wakeEmailWorkers) after its commit when so.
 */
export async function recordOrderEmail(trx: Db, deps: EmailDeps, email: OrderEmail): Promise<boolean> {
  const website = await trx
    .selectFrom('websites')
    .select('title')
    .where('id', '=', email.websiteId)
    .executeTakeFirstOrThrow();
  const rendered = renderOrderEmail(email.kind, { ...email.order, storeName: website.title }, email.news);
  const smtp = deps.emails.smtp !== undefined;
  const id = deps.ids.objectId();
  // An e-mail with gift card codes keeps its body sealed: the database holds no code (sealed.ts).
  // Download links grant access to a file just as codes do: sealed alike.
  const secret = (email.news?.giftCards?.length ?? 0) > 0 || (email.news?.downloads?.length ?? 0) > 0;
  const row: EmailsTable = {
    id,
    website_id: email.websiteId,
    kind: email.kind,
    order_id: email.orderId,
    to_address: email.to,
    subject: rendered.subject,
    html: secret ? SEALED_NOTE : rendered.html,
    text: secret ? SEALED_NOTE : rendered.text,
    sealed: secret ? await seal(trx, id, rendered) : null,
    created_on: deps.clock.now(email.websiteId),
    status: smtp ? 'PENDING' : 'NOT_SENT',
    attempts: 0,
    last_error: null,
    sent_on: null,
    leased_until: null,
  };
  await trx.insertInto('emails').values(row).execute();
  if (smtp) await deps.jobs.enqueueEmail(trx, { emailId: row.id, attempt: 0 });
  return smtp;
}
