/**
 * The orders benchmark's site and data: the owner, website and API keys made by the service's
 * own functions, products with stock made over HTTP, and a bulk load of orders straight into the
 * tables of migration 012 with set-based SQL (INSERT ... SELECT FROM generate_series).
 *
 * Every loaded order stores the `document` the service itself renders (orderDocument() of
 * orders/order-document.ts) for one realistic order of three lines, with its placing time and
 * line ids put in per row; the columns (status, payment state, times, buyer) vary per row.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { fromMinorUnits } from '../packages/server/src/shared/money.ts';
import { systemClock } from '../packages/server/src/shared/clock.ts';
import { orderDocument } from '../packages/server/src/orders/order-document.ts';
import type { OrderLine, PlacedOrder } from '../packages/server/src/shared/order-model.ts';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { randomIds } from '../packages/server/src/shared/ids.ts';
import { createApiKey } from '../packages/server/src/sites/api-keys.service.ts';
import { createOwner } from '../packages/server/src/sites/owners.service.ts';
import { createWebsite } from '../packages/server/src/sites/websites.service.ts';
import { send } from './harness.ts';
import { definitions, dropDefinitions, session, type Definition } from './load-catalog.ts';

const BATCH = 50_000;
/** Buyers with a profile; most loaded orders belong to one of them. */
const PROFILES = 1_000;
const DAY_MS = 86_400_000;
/** Placing times spread over this many days before the load. */
const SPREAD_DAYS = 730;
/** The longest time from placing to fulfillment (or cancellation). */
const MAX_DELAY_MS = 7 * DAY_MS;

export interface OrdersSite {
  websiteId: string;
  storePageId: string;
  currency: string;
  /** Scopes website.orders and website.inventory: what an order import with DEDUCT needs. */
  ordersKey: string;
  /** Scope website.products, to make the products the orders sell. */
  productsKey: string;
}

/** Owner, website (with its "Shop" page) and the two API keys. */
export async function createOrdersSite(databaseUrl: string): Promise<OrdersSite> {
  const handle = openDatabase(databaseUrl, { max: 2 });
  try {
    const deps = { db: handle.db, clock: systemClock, ids: randomIds };
    const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
    await createOwner(deps, { email, password: randomBytes(12).toString('base64url') });
    const { websiteId, storePageId } = await createWebsite(deps, { ownerEmail: email, title: 'Bench Store' });
    const key = async (name: string, scopes: string) =>
      (await createApiKey(deps, { websiteId, name, scopes })).apiKey;
    const website = await handle.db
      .selectFrom('websites')
      .select('currency')
      .where('id', '=', websiteId)
      .executeTakeFirstOrThrow();
    return {
      websiteId,
      storePageId,
      currency: website.currency,
      ordersKey: await key('Orders benchmark', 'website.orders,website.inventory'),
      productsKey: await key('Orders benchmark setup', 'website.products'),
    };
  } finally {
    await handle.close();
  }
}

/** A variant the orders sell, as the products API returned it. */
export interface StockedVariant {
  id: string;
  sku: string;
  productId: string;
  productName: string;
  size: string;
  priceMinor: number;
  stock: number;
  weight: number;
  length: number;
  width: number;
  height: number;
}

const SIZES = ['S', 'M', 'L'];
const NAMES = [
  'Linen Shirt', 'Canvas Tote Bag', 'Wool Scarf', 'Leather Wallet', 'Cotton Apron', 'Denim Jacket',
  'Cashmere Sweater', 'Hemp Backpack', 'Silk Pillow', 'Suede Belt', 'Organic Socks', 'Travel Blanket',
]; // prettier-ignore

/**
 * `products` physical products of sizes S, M and L over HTTP, each variant with `stock` in stock
 * except the variants at positions in `scarce` (0-based over all variants), which get
 * `scarceStock`.
 */
export async function createStockedProducts(
  port: number,
  site: OrdersSite,
  products: number,
  stock: number,
  scarce: Set<number>,
  scarceStock: number,
): Promise<StockedVariant[]> {
  const headers = {
    authorization: `Bearer ${site.productsKey}`,
    'user-agent': 'emporium-bench/1.0',
    'content-type': 'application/json',
  };
  const variants: StockedVariant[] = [];
  for (let p = 0; p < products; p++) {
    const name = `${NAMES[p % NAMES.length]} ${Math.floor(p / NAMES.length) + 1}`;
    const sizes = SIZES.map((size, i) => ({
      size,
      stock: scarce.has(p * SIZES.length + i) ? scarceStock : stock,
      priceMinor: 1_900 + 700 * (p % 9) + 200 * i - 5,
    }));
    const body = JSON.stringify({
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name,
      description: `<p>${name}, made for the orders benchmark.</p>`,
      variantAttributes: ['Size'],
      variants: sizes.map((s, i) => ({
        sku: `ORD-${p}-${s.size}`,
        attributes: { Size: s.size },
        pricing: { basePrice: fromMinorUnits(s.priceMinor, site.currency) },
        stock: { quantity: s.stock, unlimited: false },
        shippingMeasurements: {
          weight: { unit: 'POUND', value: 0.8 + 0.1 * i },
          dimensions: { unit: 'INCH', length: 12, width: 9, height: 2 + i },
        },
      })),
    });
    const res = await send(port, 'POST', '/1.1/commerce/products', headers, body);
    if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.body.toString()}`);
    const product = JSON.parse(res.body.toString()) as {
      id: string;
      name: string;
      variants: { id: string; sku: string; attributes: Record<string, string> }[];
    };
    product.variants.forEach((v, i) => {
      const s = sizes[i]!;
      variants.push({
        id: v.id,
        sku: v.sku,
        productId: product.id,
        productName: product.name,
        size: v.attributes.Size ?? s.size,
        priceMinor: s.priceMinor,
        stock: s.stock,
        weight: 0.8 + 0.1 * i,
        length: 12,
        width: 9,
        height: 2 + i,
      });
    });
  }
  return variants;
}

/**
 * Stand-ins in the template document, replaced per row by the SQL: 24 hex characters and an
 * ISO time like the values they stand for, so that the service's renderer takes them as such.
 */
const PLACED_STAND_IN = '1999-12-31T23:59:59.999Z';
const LINE_STAND_INS = ['b0bb1e5b0bb1e5b0bb1e5b01', 'b0bb1e5b0bb1e5b0bb1e5b02', 'b0bb1e5b0bb1e5b0bb1e5b03'];

/**
 * One realistic web order of three lines of `variants` (the first three given), with addresses, a
 * shipping line, tax and a card payment: what every loaded order's document is rendered from.
 */
export function templateOrder(site: OrdersSite, variants: StockedVariant[]): PlacedOrder {
  const address = {
    firstName: 'Ada',
    lastName: 'Lovelace',
    address1: '12 Marylebone High Street',
    address2: 'Flat 3',
    city: 'London',
    state: null,
    countryCode: 'GB',
    postalCode: 'W1U 4NR',
    phone: '+44 20 7946 0958',
  };
  const lineItems: OrderLine[] = variants.slice(0, 3).map((v, i) => ({
    id: LINE_STAND_INS[i]!,
    lineItemType: 'PHYSICAL_PRODUCT',
    variantId: v.id,
    sku: v.sku,
    productId: v.productId,
    productName: v.productName,
    quantity: i + 1,
    unitPricePaidMinor: v.priceMinor,
    weight: v.weight,
    width: v.width,
    length: v.length,
    height: v.height,
    variantOptions: [{ optionName: 'Size', value: v.size }],
    customizations: i === 0 ? [{ label: 'Gift message', value: 'Happy birthday!' }] : null,
    imageUrl: null,
  }));
  if (lineItems.length !== 3) throw new Error('the template order needs three variants');
  const subtotalMinor = lineItems.reduce((sum, l) => sum + l.unitPricePaidMinor * l.quantity, 0);
  const shippingMinor = 595;
  const taxMinor = Math.round(subtotalMinor * 0.08);
  const placedOn = new Date(PLACED_STAND_IN);
  return {
    id: 'b0bb1e5b0bb1e5b0bb1e5b00',
    websiteId: site.websiteId,
    currency: site.currency,
    orderNumber: 1,
    channel: 'web',
    channelName: 'Emporium',
    externalOrderReference: null,
    createdOn: PLACED_STAND_IN,
    placedOn,
    testmode: false,
    customerEmail: 'ada@example.com',
    customerId: null,
    billingAddress: address,
    shippingAddress: { ...address, address2: null },
    lineItems,
    internalNotes: [],
    shippingLines: [{ method: 'Standard shipping', amountMinor: shippingMinor }],
    discountLines: [],
    formSubmission: [{ label: 'How did you hear about us?', value: 'A friend' }],
    subtotalMinor,
    shippingTotalMinor: shippingMinor,
    discountTotalMinor: 0,
    taxTotalMinor: taxMinor,
    refundedTotalMinor: 0,
    grandTotalMinor: subtotalMinor + shippingMinor + taxMinor,
    priceTaxInterpretation: 'EXCLUSIVE',
    paymentState: 'PAID',
    fulfillmentStatus: 'PENDING',
    fulfilledOn: null,
    fulfillments: [],
    shippingOptionName: 'UPS Ground',
    shippingOptionServiceType: 'UPS_GROUND',
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_3PbenchTemplate',
      paidOn: placedOn,
      processingFeeMinor: Math.round((subtotalMinor + shippingMinor + taxMinor) * 0.029) + 30,
    },
  };
}

export interface OrdersLoadReport {
  orders: number;
  profiles: number;
  /** Orders the list shows by default (payment states NOT_CHARGED, AUTHORIZED, PAID, REFUNDED). */
  listed: number;
  documentBytes: number;
  insertMs: number;
  indexMs: number;
  totalMs: number;
}

/**
 * Times, in milliseconds after the load's origin, that are all different: order i (1..count) is
 * placed in slot i, of `slot` ms each, and changed last in slot i + delay (fulfilled or canceled
 * `delay` slots later, if that is before now; otherwise still as placed), both at `i mod
 * spread` ms into their slot. Two orders changed in the same slot are at most `spread - 1`
 * apart, so their offsets differ; `spread` is at most `slot`, so slots never overlap.
 */
function timeline(count: number) {
  const slot = Math.floor((SPREAD_DAYS * DAY_MS) / count);
  const maxDelay = Math.max(0, Math.min(Math.ceil(MAX_DELAY_MS / slot), slot - 1));
  const spread = maxDelay + 1;
  if (slot < 1 || spread > slot) throw new Error(`too many orders to spread over ${SPREAD_DAYS} days`);
  return { slot, maxDelay, spread, spanMs: count * slot + spread };
}

/**
 * A batch of orders, numbers first..last. Every "random" choice is a slice of a 64-bit hash of
 * the order number, so a load is reproducible while states and buyers look unordered.
 * $1 website, $2 first, $3 last, $4 the load's origin, $5 the document template, $6 order count,
 * $7 slot ms, $8 largest delay in slots, $9 spread ms, $10 grand total (minor units).
 */
const ORDERS_SQL = `
INSERT INTO orders (id, website_id, order_number, channel, customer_id, customer_email, fulfillment_status,
  fulfilled_on, fulfillments, payment_state, grand_total_minor, placed_on, modified_on, document)
SELECT substr(md5('emporium-bench-order:' || $1 || ':' || g.i), 1, 24), $1, g.i, 'web',
  b.customer_id, b.email, s.fulfillment_status,
  CASE WHEN s.fulfillment_status = 'FULFILLED' THEN t.modified_on END,
  CASE WHEN s.fulfillment_status = 'FULFILLED' THEN jsonb_build_array(jsonb_build_object(
    'shipDate', to_char(t.modified_on AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'carrierName', 'UPS', 'service', 'Ground', 'trackingNumber', '1Z' || upper(substr(md5(g.i::text), 1, 16)),
    'trackingUrl', 'https://www.ups.com/track?tracknum=1Z' || upper(substr(md5(g.i::text), 1, 16))))
    ELSE '[]'::jsonb END,
  s.payment_state, $10, t.placed_on, t.modified_on,
  replace(replace(replace(replace($5::text,
    '${PLACED_STAND_IN}', to_char(t.placed_on AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    '${LINE_STAND_INS[0]}', substr(md5('emporium-bench-line:1:' || $1 || ':' || g.i), 1, 24)),
    '${LINE_STAND_INS[1]}', substr(md5('emporium-bench-line:2:' || $1 || ':' || g.i), 1, 24)),
    '${LINE_STAND_INS[2]}', substr(md5('emporium-bench-line:3:' || $1 || ':' || g.i), 1, 24))::json
FROM generate_series($2::bigint, $3::bigint) AS g(i)
CROSS JOIN LATERAL (
  SELECT hashint8extended(g.i, 21) & 9223372036854775807 AS h1,
    hashint8extended(g.i, 22) & 9223372036854775807 AS h2
) r
CROSS JOIN LATERAL (
  -- kind: 2% awaiting payment (hidden from the default list), 0.5% canceled, the rest paid
  SELECT r.h1 % 1000 AS kind, (r.h1 >> 20) % ($8::bigint + 1) AS delay
) k
CROSS JOIN LATERAL (
  SELECT k.kind >= 20 AND g.i + k.delay <= $6::bigint AS changed
) c
CROSS JOIN LATERAL (
  SELECT CASE WHEN k.kind < 20 THEN 'PENDING' WHEN k.kind < 25 AND c.changed THEN 'REFUNDED' ELSE 'PAID' END
      AS payment_state,
    CASE WHEN NOT c.changed THEN 'PENDING' WHEN k.kind < 25 THEN 'CANCELED' ELSE 'FULFILLED' END
      AS fulfillment_status,
    CASE WHEN c.changed THEN g.i + k.delay ELSE g.i END AS changed_slot
) s
CROSS JOIN LATERAL (
  SELECT $4::timestamptz + (g.i * $7::bigint + g.i % $9::bigint) * interval '1 millisecond' AS placed_on,
    $4::timestamptz + (s.changed_slot * $7::bigint + g.i % $9::bigint) * interval '1 millisecond' AS modified_on
) t
CROSS JOIN LATERAL (
  -- nine orders in ten by a buyer with a profile; the others without an e-mail (taken in person)
  SELECT CASE WHEN r.h2 % 10 < 9 THEN substr(md5('emporium-bench-profile:' || $1 || ':' || (r.h2 >> 8) % ${PROFILES}), 1, 24) END
      AS customer_id,
    CASE WHEN r.h2 % 10 < 9 THEN 'buyer-' || (r.h2 >> 8) % ${PROFILES} || '@example.com' END AS email
) b`;

const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Radia',
  'Niklaus',
];
const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Perlman',
];

/** The buyers' profiles, with the ids and e-mails ORDERS_SQL gives its orders; totals set after. */
const PROFILES_SQL = `
INSERT INTO profiles (id, website_id, email, first_name, last_name, has_account, accepts_marketing, address,
  order_count, total_order_minor, total_refund_minor, first_order_on, last_order_on, created_on)
SELECT substr(md5('emporium-bench-profile:' || $1 || ':' || k), 1, 24), $1, 'buyer-' || k || '@example.com',
  ($2::text[])[1 + k % cardinality($2::text[])], ($3::text[])[1 + k % cardinality($3::text[])],
  k % 3 = 0, k % 2 = 0, $4::jsonb, 0, 0, 0, NULL, NULL, $5::timestamptz + k * interval '1 second'
FROM generate_series(0, ${PROFILES - 1}) AS k`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

/**
 * Loads `count` orders into the website of a new database (its orders table must be empty):
 * its keys, indexes and statement triggers are dropped, the rows inserted by two sessions, the
 * keys and indexes rebuilt from their own definitions (one session each), then the buyers'
 * totals, the website's order number and change clock, `VACUUM (ANALYZE)`, and one change notice
 * in place of the triggers' (so no list of the website stays cached).
 */
export async function loadOrders(
  databaseUrl: string,
  site: OrdersSite,
  template: PlacedOrder,
  count: number,
  log: (line: string) => void,
): Promise<OrdersLoadReport> {
  const a = await session(databaseUrl);
  const b = await session(databaseUrl);
  try {
    const { rows: existing } = await a.query<{ n: string }>('SELECT count(*) AS n FROM orders');
    if (Number(existing[0]?.n) !== 0)
      throw new Error('the orders table is not empty: load into a new database');
    const document = JSON.stringify(orderDocument(template));
    for (const stand of [PLACED_STAND_IN, ...LINE_STAND_INS]) {
      if (document.split(stand).length !== 2)
        throw new Error(`the order document does not hold ${stand} once: update bench/load-orders.ts`);
    }
    const started = performance.now();
    const { slot, maxDelay, spread, spanMs } = timeline(count);
    const origin = new Date(Date.now() - spanMs);

    const defs = await definitions(a, ['orders']);
    await dropDefinitions(a, defs);
    const { rows: triggers } = await a.query<{ name: string; build: string }>(
      `SELECT tgname AS name, pg_get_triggerdef(oid) AS build FROM pg_trigger
       WHERE tgrelid = 'orders'::regclass AND NOT tgisinternal`,
    );
    // Statement triggers with transition tables would keep every inserted row in a tuplestore.
    for (const t of triggers) await a.query(`DROP TRIGGER ${t.name} ON orders`);

    await a.query(PROFILES_SQL, [
      site.websiteId,
      FIRST_NAMES,
      LAST_NAMES,
      JSON.stringify(template.shippingAddress),
      origin,
    ]);

    const queue: [number, number][] = [];
    for (let first = 1; first <= count; first += BATCH)
      queue.push([first, Math.min(first + BATCH - 1, count)]);
    const insert = async (client: pg.Client) => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        await client.query(ORDERS_SQL, [
          site.websiteId,
          batch[0],
          batch[1],
          origin,
          document,
          count,
          slot,
          maxDelay,
          spread,
          template.grandTotalMinor,
        ]);
      }
    };
    const [, insertMs] = await timed(() => Promise.all([insert(a), insert(b)]));
    log(`  ${count} orders inserted in ${(insertMs / 1000).toFixed(1)} s`);

    const builds = defs.filter((d: Definition) => d.kind !== 'f').map((d) => d.build);
    const [, indexMs] = await timed(async () => {
      await Promise.all(
        [a, b].map(async (client, n) => {
          for (const build of builds.filter((_, i) => i % 2 === n)) await client.query(build);
        }),
      );
      for (const d of defs) if (d.attach) await a.query(d.attach);
      for (const d of defs) if (d.kind === 'f') await a.query(d.build);
      for (const t of triggers) await a.query(t.build);
    });
    log(`  keys and indexes rebuilt, foreign keys checked in ${(indexMs / 1000).toFixed(1)} s`);

    await a.query(
      `UPDATE profiles p SET order_count = o.n, total_order_minor = o.total, first_order_on = o.first,
         last_order_on = o.last
       FROM (SELECT customer_id, count(*) AS n, sum(grand_total_minor) AS total, min(placed_on) AS first,
               max(placed_on) AS last
             FROM orders WHERE website_id = $1 AND customer_id IS NOT NULL GROUP BY customer_id) o
       WHERE p.id = o.customer_id`,
      [site.websiteId],
    );
    await a.query(
      `INSERT INTO order_numbers (website_id, last) VALUES ($1, $2)
       ON CONFLICT (website_id) DO UPDATE SET last = excluded.last`,
      [site.websiteId, count],
    );
    await a.query(
      `INSERT INTO change_clocks (website_id, stamp)
       SELECT $1, max(modified_on) FROM orders WHERE website_id = $1
       ON CONFLICT (website_id) DO UPDATE SET stamp = greatest(change_clocks.stamp, excluded.stamp)`,
      [site.websiteId],
    );
    await Promise.all([a.query('VACUUM (ANALYZE) orders'), b.query('VACUUM (ANALYZE) profiles')]);
    await a.query(`SELECT pg_notify('emporium_changes', 'orders:' || $1::text)`, [site.websiteId]);
    const totalMs = performance.now() - started;

    const { rows } = await a.query<{
      orders: string;
      distinct_times: string;
      listed: string;
      profiles: string;
    }>(
      `SELECT count(*) AS orders, count(DISTINCT modified_on) AS distinct_times,
         count(*) FILTER (WHERE payment_state IN ('NOT_CHARGED', 'AUTHORIZED', 'PAID', 'REFUNDED')) AS listed,
         (SELECT count(*) FROM profiles WHERE website_id = $1) AS profiles
       FROM orders WHERE website_id = $1`,
      [site.websiteId],
    );
    const row = rows[0]!;
    if (Number(row.orders) !== count) throw new Error(`${row.orders} orders loaded, not ${count}`);
    if (row.distinct_times !== row.orders) throw new Error(`only ${row.distinct_times} distinct modifiedOn`);
    return {
      orders: count,
      profiles: Number(row.profiles),
      listed: Number(row.listed),
      documentBytes: Buffer.byteLength(document),
      insertMs,
      indexMs,
      totalMs,
    };
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
}
