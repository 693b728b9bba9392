import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { randomPoolBytes } from '../shared/random-pool.ts';

/**
 * The codes of the gift cards an order bought, for its confirmation page: the database keeps no
 * code (only its digest: docs/security.md, SC-1), so the browser that placed the order carries
 * them, sealed with AES-256-GCM under a key derived from the receipt's, beside the receipt
 * cookie (checkout-receipt.ts) and for as long. The order's e-mail carries them too. A cookie
 * stays under browsers' 4 KB: past MAX_CODES the page says to look in the e-mail.
 */

export const GIFT_CARDS_COOKIE = 'emporium_gift_cards';
export const MAX_CODES = 100;

export interface ReceiptGiftCard {
  code: string;
  amountMinor: number;
}

const keyOf = (receiptKey: Buffer) =>
  createHmac('sha256', receiptKey).update('emporium gift card codes').digest();
const aad = (websiteId: string, orderId: string) => Buffer.from(`${websiteId}\n${orderId}`);

export function encodeGiftCards(
  receiptKey: Buffer,
  websiteId: string,
  orderId: string,
  cards: ReceiptGiftCard[],
): string {
  const nonce = Buffer.from(randomPoolBytes(12));
  const cipher = createCipheriv('aes-256-gcm', keyOf(receiptKey), nonce);
  cipher.setAAD(aad(websiteId, orderId));
  const body = JSON.stringify(cards.slice(0, MAX_CODES).map((c) => [c.code, c.amountMinor]));
  const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The codes in the cookie when it is this order's; none otherwise (another order's, tampered). */
export function decodeGiftCards(
  receiptKey: Buffer,
  websiteId: string,
  orderId: string,
  cookie: string | undefined,
): ReceiptGiftCard[] {
  if (!cookie) return [];
  try {
    const box = Buffer.from(cookie, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(receiptKey), box.subarray(0, 12));
    decipher.setAAD(aad(websiteId, orderId));
    decipher.setAuthTag(box.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]).toString('utf8');
    return (JSON.parse(plain) as [string, number][]).map(([code, amountMinor]) => ({ code, amountMinor }));
  } catch {
    return [];
  }
}
