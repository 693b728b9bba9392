import nodemailer from 'nodemailer';
import type { Db } from '../db/database.ts';
import type { EmailsTable } from '../db/emails-schema.ts';
import type { EmailJobData } from '../jobs/queue.ts';
import type { EmailDeps } from './outbox.ts';
import { opened } from './sealed.ts';

export interface SendingDeps extends EmailDeps {
  db: Db;
}

/** Sends one message through the configured SMTP server; the error's message when it failed. */
async function sendMessage(
  deps: SendingDeps,
  smtp: { url: string; from: string },
  email: EmailsTable & { store_name: string },
): Promise<string | null> {
  const timeout = deps.emails.timeoutMs;
  const transport = nodemailer.createTransport({
    url: smtp.url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  try {
    await transport.sendMail({
      from: { name: email.store_name, address: smtp.from },
      to: email.to_address,
      subject: email.subject,
      html: email.html,
      text: email.text,
    });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    transport.close();
  }
}

/**
 * One attempt at sending an e-mail: the job of `email.send`. The e-mail is leased first, so two
 * jobs for one attempt (a job handed out again after its worker died) never send at once, and a
 * job whose attempt was already made does nothing. A failed attempt queues the next after its
 * delay, in the transaction that records it; after the last the e-mail is FAILED with the error.
 */
export async function attemptSend(deps: SendingDeps, job: EmailJobData): Promise<void> {
  const now = deps.clock.now();
  const email = await deps.db
    .updateTable('emails')
    .set({ leased_until: new Date(now.getTime() + deps.emails.timeoutMs + 20_000) })
    .where('id', '=', job.emailId)
    .where('status', '=', 'PENDING')
    .where('attempts', '=', job.attempt)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
    .returningAll()
    .returning((eb) =>
      eb
        .selectFrom('websites')
        .select('websites.title')
        .whereRef('websites.id', '=', 'emails.website_id')
        .as('store_name'),
    )
    .executeTakeFirst();
  if (!email) return;
  const smtp = deps.emails.smtp;
  const error = smtp
    ? await sendMessage(deps, smtp, { ...(await opened(deps.db, email)), store_name: email.store_name ?? '' })
    : 'no SMTP server is configured (SMTP_URL)';
  const at = deps.clock.now(email.website_id);
  const attempts = email.attempts + 1;
  // A sent e-mail keeps the error of its last failed attempt, if any: why it went late.
  const base = { attempts, leased_until: null, ...(error !== null && { last_error: error }) };
  const update = (db: Db, set: Partial<EmailsTable>) =>
    db
      .updateTable('emails')
      .set({ ...base, ...set })
      .where('id', '=', email.id)
      .execute();
  if (error === null) {
    await update(deps.db, { status: 'SENT', sent_on: at });
    return;
  }
  if (!smtp || attempts >= deps.emails.attempts) {
    await update(deps.db, { status: 'FAILED' });
    return;
  }
  const wait = deps.emails.retryDelayMs(attempts);
  await deps.db.transaction().execute(async (trx) => {
    await update(trx, {});
    await deps.jobs.enqueueEmail(trx, {
      emailId: email.id,
      attempt: attempts,
      startAfterSeconds: wait / 1000,
    });
  });
  if (wait < 1000) deps.jobs.wakeEmailWorkers();
}
