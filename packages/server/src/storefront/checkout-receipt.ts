import { createHmac } from 'node:crypto';
import { secretsEqual } from '../shared/secrets.ts';
import { OBJECT_ID } from '../shared/ids.ts';

/**
 * Which order's confirmation this browser may see: the order it placed last, in a cookie with
 * a MAC under a server key. An order id in an address is no proof of having placed it (it can be
 * shared or seen in logs), and an order's page shows the buyer's address.
 */

export const RECEIPT_COOKIE = 'emporium_receipt';

/** The receipts' own key, derived from the store's server secret apart from the cart's. */
export function receiptKey(serverKey: Buffer): Buffer {
  return createHmac('sha256', serverKey).update('emporium storefront receipt').digest();
}

const mac = (key: Buffer, websiteId: string, orderId: string) =>
  createHmac('sha256', key).update(`${websiteId}\n${orderId}`).digest('base64url');

export function encodeReceipt(key: Buffer, websiteId: string, orderId: string): string {
  return `${orderId}~${mac(key, websiteId, orderId)}`;
}

/** True when the cookie is this website's receipt for this order. */
export function holdsReceipt(
  key: Buffer,
  websiteId: string,
  orderId: string,
  cookie: string | undefined,
): boolean {
  if (!cookie || !OBJECT_ID.test(orderId)) return false;
  const [id, presented, extra] = cookie.split('~');
  if (id !== orderId || !presented || extra !== undefined) return false;
  return secretsEqual(presented, mac(key, websiteId, orderId));
}
