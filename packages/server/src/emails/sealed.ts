import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { EmailsTable } from '../db/emails-schema.ts';
import { serverSecret } from '../db/server-secrets.ts';
import { randomPoolBytes } from '../shared/random-pool.ts';

/**
 * E-mails that carry a secret (a gift card's code) are kept sealed: their html and text encrypted
 * with AES-256-GCM under a key derived from a server secret shared by every instance, so the
 * database holds no usable code (docs/security.md, SC-1 and SC-4), while the owner's E-mails page,
 * the test controls and SMTP, which must show or send the e-mail as it was, open it here.
 * Layout: 12-byte nonce, 16-byte tag, ciphertext of `{"html":…,"text":…}`. The row's id is the
 * additional data, so a sealed body moved to another e-mail does not open.
 */

/** What the html and text columns of a sealed e-mail say. */
export const SEALED_NOTE = 'This e-mail is kept encrypted; it is opened to be shown or sent.';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

async function sealingKey(db: Db): Promise<Buffer> {
  const secret = await serverSecret(db, 'emails');
  return createHmac('sha256', secret).update('emporium sealed e-mail').digest();
}

export async function seal(db: Db, emailId: string, body: { html: string; text: string }): Promise<Buffer> {
  const key = await sealingKey(db);
  const nonce = Buffer.from(randomPoolBytes(NONCE_BYTES));
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(emailId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), sealed]);
}

/** The e-mail with its html and text opened, when sealed; as it is otherwise. */
export async function opened<T extends Pick<EmailsTable, 'id' | 'html' | 'text' | 'sealed'>>(
  db: Db,
  email: T,
): Promise<T> {
  if (!email.sealed) return email;
  const key = await sealingKey(db);
  const box = email.sealed;
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(email.id));
  decipher.setAuthTag(box.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
  const plain = Buffer.concat([decipher.update(box.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
  const body = JSON.parse(plain.toString('utf8')) as { html: string; text: string };
  return { ...email, html: body.html, text: body.text };
}
