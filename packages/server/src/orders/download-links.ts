import { createHmac } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { OrderDownloadsTable } from '../db/downloads-schema.ts';
import { serverSecret } from '../db/server-secrets.ts';
import type { Clock } from '../shared/clock.ts';
import { Gone, NotFound } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import type { PlacedOrder } from '../shared/order-model.ts';
import { secretsEqual } from '../shared/secrets.ts';
import { websiteUrl } from '../shared/store-urls.ts';
import * as repo from './downloads.repo.ts';

/**
 * The download links of an order's DIGITAL lines: one a line, made with the order, signed with an
 * HMAC under a key derived from the store's server secret (as the cart's and the receipt's are),
 * working DOWNLOAD_HOURS of the website's time and DOWNLOAD_LIMIT downloads. The signature covers
 * the link's row (website, order, line, expiry), so a link changed in any part, or moved to
 * another website, is no link. A refunded or canceled order's links stop working.
 */

/** How long a link works: the platform's help says a day. */
export const DOWNLOAD_HOURS = 24;
/** How often a link may be used: enough for a retry and another device, not for sharing it around. */
export const DOWNLOAD_LIMIT = 5;

export interface LinkDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  baseUrl: string;
}

/** A line's link as the buyer is given it. */
export interface IssuedLink {
  lineId: string;
  productName: string;
  url: string;
  expiresAt: Date;
}

const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The links' own key, derived from the store's server secret apart from the cart's and the receipt's. */
export function downloadKey(serverKey: Buffer): Buffer {
  return createHmac('sha256', serverKey).update('emporium storefront download').digest();
}

async function keyOf(db: Db): Promise<Buffer> {
  return downloadKey(await serverSecret(db, 'storefront'));
}

function signature(key: Buffer, row: OrderDownloadsTable): string {
  const signed = [row.website_id, row.id, row.order_id, row.line_id, row.expires_at.getTime()].join('\n');
  return createHmac('sha256', key).update(signed).digest('base64url');
}

/** Where the link downloads from: `/s/<websiteId>/downloads/<link id>/<signature>`. */
function urlOf(baseUrl: string, key: Buffer, row: OrderDownloadsTable): string {
  return `${websiteUrl(baseUrl, row.website_id)}/downloads/${row.id}/${signature(key, row)}`;
}

function rowsFor(
  deps: Omit<LinkDeps, 'db'>,
  order: Pick<PlacedOrder, 'id' | 'websiteId'>,
  lines: { id: string; productId: string | null }[],
) {
  const now = deps.clock.now(order.websiteId);
  const expiresAt = new Date(now.getTime() + DOWNLOAD_HOURS * 3600_000);
  return lines.map((line): OrderDownloadsTable => ({
    id: deps.ids.uuid(),
    website_id: order.websiteId,
    order_id: order.id,
    line_id: line.id,
    product_id: line.productId!,
    expires_at: expiresAt,
    downloads: 0,
    created_at: now,
  }));
}

/** Makes the links of the order's DIGITAL lines, in the placing transaction. */
export async function issueDownloadLinks(
  trx: Db,
  deps: Omit<LinkDeps, 'db'>,
  order: PlacedOrder,
): Promise<IssuedLink[]> {
  const lines = order.lineItems.filter((l) => l.lineItemType === 'DIGITAL' && l.productId);
  if (lines.length === 0) return [];
  const rows = rowsFor(deps, order, lines);
  await repo.insertDownloads(trx, rows);
  const key = await keyOf(trx);
  return rows.map((row, i) => ({
    lineId: row.line_id,
    productName: lines[i]!.productName,
    url: urlOf(deps.baseUrl, key, row),
    expiresAt: row.expires_at,
  }));
}

/** The links as the e-mail tells them (emails/templates.ts). */
export function emailedDownloads(
  links: IssuedLink[],
): { productName: string; url: string; expiresOn: string }[] {
  return links.map((l) => ({ productName: l.productName, url: l.url, expiresOn: l.expiresAt.toISOString() }));
}

/** A line's newest link, with its use, for the confirmation page and the owner's order page. */
export interface LineDownload {
  lineId: string;
  url: string;
  expiresAt: Date;
  /** Downloads of every link of the line. */
  downloads: number;
  expired: boolean;
}

export async function orderDownloads(
  deps: LinkDeps,
  websiteId: string,
  orderId: string,
): Promise<Map<string, LineDownload>> {
  const rows = await repo.selectOrderDownloads(deps.db, websiteId, orderId);
  const byLine = new Map<string, LineDownload>();
  if (rows.length === 0) return byLine;
  const key = await keyOf(deps.db);
  const now = deps.clock.now(websiteId);
  for (const row of rows) {
    const before = byLine.get(row.line_id)?.downloads ?? 0;
    byLine.set(row.line_id, {
      lineId: row.line_id,
      url: urlOf(deps.baseUrl, key, row),
      expiresAt: row.expires_at,
      downloads: before + row.downloads,
      expired: row.expires_at <= now,
    });
  }
  return byLine;
}

/** A fresh link for a DIGITAL line of the order (the owner's "Send a fresh link"): a new day, a new count. */
export async function freshDownloadLink(
  trx: Db,
  deps: Omit<LinkDeps, 'db'>,
  order: Pick<PlacedOrder, 'id' | 'websiteId'>,
  line: { id: string; productId: string | null; productName: string },
): Promise<IssuedLink> {
  const [row] = rowsFor(deps, order, [line]);
  await repo.insertDownloads(trx, [row!]);
  return {
    lineId: line.id,
    productName: line.productName,
    url: urlOf(deps.baseUrl, await keyOf(trx), row!),
    expiresAt: row!.expires_at,
  };
}

/** What a download sends: the product's file now. */
export interface Download {
  fileId: string;
  filename: string;
}

const UNKNOWN = 'There is no download at this address. Check the link in your e-mail.';

/**
 * Counts one download of the link and answers its file, or refuses, counting nothing: an unknown,
 * changed or other website's link is a 404; one expired, used DOWNLOAD_LIMIT times, of a refunded
 * or canceled order, or whose product or file is gone, a 410.
 */
export async function useDownload(
  deps: LinkDeps,
  websiteId: string,
  id: string,
  presented: string,
): Promise<Download> {
  if (!UUID.test(id) || !SIGNATURE.test(presented)) throw new NotFound(UNKNOWN);
  const key = await keyOf(deps.db);
  return deps.db.transaction().execute(async (trx) => {
    const link = await repo.lockDownload(trx, websiteId, id);
    if (!link || !secretsEqual(presented, signature(key, link))) throw new NotFound(UNKNOWN);
    if (link.expires_at <= deps.clock.now(websiteId)) {
      throw new Gone('This download link has expired. Ask the store for a fresh one.');
    }
    if (link.downloads >= DOWNLOAD_LIMIT) {
      throw new Gone(
        `This download link has been used ${DOWNLOAD_LIMIT} times, as often as it may be. Ask the store for a fresh one.`,
      );
    }
    if (link.payment_state !== 'PAID' || link.fulfillment_status === 'CANCELED') {
      throw new Gone('This order was refunded or canceled, so its downloads are no longer available.');
    }
    if (!link.digital_good) throw new Gone('This download is no longer available in the store.');
    await repo.countDownload(trx, link.id);
    return { fileId: link.digital_good.id, filename: link.digital_good.filename };
  });
}
