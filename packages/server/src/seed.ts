import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOwner } from './sites/owners.service.ts';
import { loadFixture, type FixtureDeps } from './testing/fixtures/load-fixture.ts';
import type { FixtureOrder } from './testing/fixtures/fixture-orders.schemas.ts';
import type { SiteFixture } from './testing/fixtures/fixture.schemas.ts';

export interface DemoSite {
  email: string;
  password: string;
  websiteId: string;
  storePageId: string;
  apiKey: string;
}

/** The demo store: a small shop's catalogue of every type, with pictures, imported orders and store orders (one partly refunded). */
export const DEMO_SITE_PATH = fileURLToPath(new URL('../fixtures/demo-site.json', import.meta.url));

const HOUR_MS = 3600_000;
/** How long before start-up the newest demo order was placed. */
const NEWEST_ORDER_AGO_MS = 3 * HOUR_MS;

const shifted = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/**
 * The orders moved in time, keeping their spacing, so that the newest was placed three hours ago:
 * the owner's dashboard and the Orders API show recent days at once, whenever the demo starts.
 */
function recentOrders(orders: FixtureOrder[], now: Date): FixtureOrder[] {
  if (orders.length === 0) return orders;
  const newest = Math.max(...orders.map((o) => Date.parse(o.createdOn)));
  const ms = now.getTime() - NEWEST_ORDER_AGO_MS - newest;
  return orders.map((order) => ({
    ...order,
    createdOn: shifted(order.createdOn, ms),
    ...(order.fulfilledOn && { fulfilledOn: shifted(order.fulfilledOn, ms) }),
    fulfillments: order.fulfillments.map((s) => ({ ...s, shipDate: shifted(s.shipDate, ms) })),
  }));
}

/**
 * On a database without owners, a demo owner and the demo site (fixtures/demo-site.json: its
 * products, pictures, orders and all-scopes API key), so a fresh `npm start` can be tried with
 * curl at once. Loaded as any fixture is, through the services: the orders take stock, the
 * pictures are processed by the workers. Returns the secrets to show once, or undefined.
 */
export async function seedDemoSite(deps: FixtureDeps): Promise<DemoSite | undefined> {
  const any = await deps.db.selectFrom('owners').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  const fixture = JSON.parse(await fs.readFile(DEMO_SITE_PATH, 'utf8')) as SiteFixture;
  fixture.orders = recentOrders(fixture.orders ?? [], deps.clock.now());
  const { ownerId } = await createOwner(deps, { email, password, firstName: 'Demo', lastName: 'Owner' });
  let site;
  try {
    // Its files (the download's) are beside it.
    site = await loadFixture(deps, fixture, { ownerEmail: email, baseDir: path.dirname(DEMO_SITE_PATH) });
  } catch (error) {
    // Without its site, the owner (whose password no one was shown) would stop the next start
    // from seeding: it goes too.
    await deps.db.deleteFrom('owners').where('id', '=', ownerId).execute();
    throw error;
  }
  return {
    email,
    password,
    websiteId: site.websiteId,
    storePageId: site.storePageIds[0]!,
    apiKey: site.apiKeys[0]!.apiKey,
  };
}
