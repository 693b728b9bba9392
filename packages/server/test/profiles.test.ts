import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ProfilePage, ProfilesById } from '../src/customers/profiles.schemas.ts';
import { recordBuyer, type Buyer } from '../src/customers/profiles.service.ts';
import type { AddressJson } from '../src/shared/order-model.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { withCredential } from './helpers/inventory.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Customer profiles (platform-surface 2.3): kept by orders through recordBuyer, read by apps. */

const PROFILES = '/1.0/profiles';
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

interface WireProfile {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  hasAccount: boolean;
  isCustomer: boolean;
  createdOn: string;
  address: AddressJson | null;
  acceptsMarketing: boolean;
  transactionsSummary: Record<string, unknown>;
}

const addressAt = (city: string): AddressJson => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Main St',
  address2: null,
  city,
  state: 'NY',
  countryCode: 'US',
  postalCode: '12207',
  phone: '+1 555 0100',
});

const buyer = (overrides: Partial<Buyer> = {}): Buyer => ({
  email: `buyer-${randomBytes(4).toString('hex')}@example.com`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  address: null,
  orderTotalMinor: 1000,
  placedOn: new Date('2025-12-01T10:00:00.000Z'),
  ...overrides,
});

/** Counts an order into its buyer's profile as the order service does: in a transaction of its own. */
const record = (s: Site, b: Buyer) =>
  ctx.db.transaction().execute((trx) => recordBuyer(trx, { ids: ctx.ids, clock: ctx.clock }, s.websiteId, b));

interface Row {
  id?: string;
  email?: string;
  last_name?: string;
  has_account?: boolean;
  order_count?: number;
  /** With microseconds, `2026-01-01T00:00:00.000001Z`. */
  created_on?: string;
}

/** A profile written directly: one without orders (a subscriber), with an account, or with a set time. */
async function insertProfile(s: Site, row: Row = {}): Promise<string> {
  const id = row.id ?? randomBytes(12).toString('hex');
  const orders = row.order_count ?? 0;
  await ctx.db
    .insertInto('profiles')
    .values({
      id,
      website_id: s.websiteId,
      email: row.email ?? `p-${id}@example.com`,
      first_name: 'Grace',
      last_name: row.last_name ?? 'Hopper',
      has_account: row.has_account ?? false,
      accepts_marketing: true,
      address: null,
      order_count: orders,
      total_order_minor: orders * 500,
      total_refund_minor: 0,
      first_order_on: orders ? new Date('2025-11-01T00:00:00.000Z') : null,
      last_order_on: orders ? new Date('2025-11-02T00:00:00.000Z') : null,
      created_on: sql<Date>`${row.created_on ?? '2026-01-01T00:00:00.000000Z'}::timestamptz`,
    })
    .execute();
  return id;
}

async function getOne(s: Site, id: string): Promise<WireProfile> {
  const res = await s.call({ method: 'GET', url: `${PROFILES}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  assertShape(ProfilesById, res.json());
  return res.json().profiles[0];
}

const list = (s: Site, query: Record<string, string> = {}) => s.call({ method: 'GET', url: PROFILES, query });

async function page(s: Site, query: Record<string, string> = {}) {
  const res = await list(s, query);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assertShape(ProfilePage, body);
  return body as { profiles: WireProfile[]; pagination: Record<string, unknown> };
}

/** Every page of a list, following nextPageCursor; returns the profiles and the page sizes. */
async function allPages(s: Site, query: Record<string, string> = {}) {
  const profiles: WireProfile[] = [];
  const sizes: number[] = [];
  let body = await page(s, query);
  for (;;) {
    profiles.push(...body.profiles);
    sizes.push(body.profiles.length);
    const cursor = body.pagination.nextPageCursor as string | null;
    if (!cursor) break;
    assert.ok(sizes.length < 10, 'the pages come to an end: the cursor moves forward');
    assert.equal(body.pagination.nextPageUrl, `${BASE_URL}${PROFILES}?cursor=${encodeURIComponent(cursor)}`);
    body = await page(s, { cursor });
  }
  assert.deepEqual(body.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
  return { profiles, sizes };
}

const invalid = (res: Parameters<typeof assertError>[0], message: RegExp) =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', message);

describe('recordBuyer', () => {
  test('the first order creates the profile; later ones find it by e-mail whatever its case and add to it', async () => {
    const own = await ctx.site();
    const at = (day: number) => new Date(Date.UTC(2025, 10, day, 12));
    const first = await record(
      own,
      buyer({
        email: 'Ada@Example.com',
        firstName: null,
        lastName: null,
        orderTotalMinor: 1250,
        placedOn: at(10),
      }),
    );
    assert.match(first, /^[0-9a-f]{24}$/);
    const created = await getOne(own, first);
    assert.deepEqual([created.firstName, created.lastName, created.address], ['', '', null]);

    const second = await record(
      own,
      buyer({
        email: 'ada@example.COM',
        firstName: 'Ada',
        lastName: 'Lovelace',
        address: addressAt('Albany'),
        orderTotalMinor: 750,
        placedOn: at(20),
      }),
    );
    // An older order (an import of past sales): its names and address do not replace newer ones.
    const third = await record(
      own,
      buyer({
        email: 'ADA@EXAMPLE.COM',
        firstName: 'Other',
        lastName: 'Name',
        address: addressAt('Boston'),
        orderTotalMinor: 1000,
        placedOn: at(1),
      }),
    );
    assert.deepEqual([second, third], [first, first]);
    const profile = await getOne(own, first);
    assert.equal(profile.email, 'Ada@Example.com', 'the first spelling is kept');
    assert.deepEqual(
      [profile.firstName, profile.lastName],
      ['Ada', 'Lovelace'],
      'empty names filled, then kept',
    );
    assert.equal(profile.address?.city, 'Albany');
    assert.equal(profile.isCustomer, true);
    assert.deepEqual(profile.transactionsSummary, {
      firstOrderSubmittedOn: at(1).toISOString(),
      lastOrderSubmittedOn: at(20).toISOString(),
      orderCount: 3,
      totalOrderAmount: { currency: 'USD', value: '30.00' },
      totalRefundAmount: { currency: 'USD', value: '0.00' },
      firstDonationSubmittedOn: null,
      lastDonationSubmittedOn: null,
      donationCount: 0,
      totalDonationAmount: { currency: 'USD', value: '0.00' },
    });

    await record(own, buyer({ email: 'ada@example.com', address: addressAt('Chicago'), placedOn: at(25) }));
    await record(own, buyer({ email: 'ada@example.com', address: null, placedOn: at(26) }));
    assert.equal(
      (await getOne(own, first)).address?.city,
      'Chicago',
      'a newer address replaces; none keeps it',
    );

    const elsewhere = await record(await ctx.site(), buyer({ email: 'ada@example.com' }));
    assert.notEqual(elsewhere, first, 'one profile per website');
  });

  test('concurrent first orders of one buyer make one profile that counts them all', async () => {
    const own = await ctx.site();
    const emails = [
      'sam@example.com',
      'SAM@example.com',
      'Sam@Example.com',
      'sam@EXAMPLE.com',
      'sAm@example.com',
    ];
    const ids = await Promise.all(emails.map((email) => record(own, buyer({ email, orderTotalMinor: 100 }))));
    assert.equal(new Set(ids).size, 1);
    const summary = (await getOne(own, ids[0]!)).transactionsSummary;
    assert.equal(summary.orderCount, 5);
    assert.deepEqual(summary.totalOrderAmount, { currency: 'USD', value: '5.00' });
  });
});

describe('the Profile', () => {
  test('fields in the order of 2.3.3, createdOn with microseconds, money in the website currency', async () => {
    const euro = await ctx.site({ currency: 'EUR' });
    const placedOn = new Date('2025-12-24T18:30:00.123Z');
    const id = await record(
      euro,
      buyer({ email: 'ada@example.eu', address: addressAt('Paris'), orderTotalMinor: 4999, placedOn }),
    );
    const profile = await getOne(euro, id);
    assert.deepEqual(Object.keys(profile), [
      'id',
      'firstName',
      'lastName',
      'email',
      'hasAccount',
      'isCustomer',
      'createdOn',
      'address',
      'acceptsMarketing',
      'transactionsSummary',
    ]);
    assert.deepEqual(
      Object.keys(profile.address!),
      Object.keys(addressAt('x')),
      'the order Address field order',
    );
    assert.deepEqual(profile.address, addressAt('Paris'));
    assert.deepEqual(Object.keys(profile.transactionsSummary), [
      'firstOrderSubmittedOn',
      'lastOrderSubmittedOn',
      'orderCount',
      'totalOrderAmount',
      'totalRefundAmount',
      'firstDonationSubmittedOn',
      'lastDonationSubmittedOn',
      'donationCount',
      'totalDonationAmount',
    ]);
    assert.match(profile.createdOn, MICROS);
    assert.ok(profile.createdOn.startsWith('2026-01-01T'), `from the injected clock: ${profile.createdOn}`);
    assert.deepEqual(
      [profile.hasAccount, profile.isCustomer, profile.acceptsMarketing],
      [false, true, false],
    );
    assert.equal(profile.transactionsSummary.firstOrderSubmittedOn, '2025-12-24T18:30:00.123Z');
    assert.deepEqual(profile.transactionsSummary.totalOrderAmount, { currency: 'EUR', value: '49.99' });
    assert.deepEqual(profile.transactionsSummary.totalDonationAmount, { currency: 'EUR', value: '0.00' });
  });

  test('real microseconds are kept; a profile without orders is no customer and has an empty summary', async () => {
    const id = await insertProfile(site, { created_on: '2026-02-03T04:05:06.789012Z', has_account: true });
    const profile = await getOne(site, id);
    assert.equal(profile.createdOn, '2026-02-03T04:05:06.789012Z');
    assert.deepEqual([profile.hasAccount, profile.isCustomer], [true, false]);
    assert.deepEqual(profile.transactionsSummary, {
      firstOrderSubmittedOn: null,
      lastOrderSubmittedOn: null,
      orderCount: 0,
      totalOrderAmount: { currency: 'USD', value: '0.00' },
      totalRefundAmount: { currency: 'USD', value: '0.00' },
      firstDonationSubmittedOn: null,
      lastDonationSubmittedOn: null,
      donationCount: 0,
      totalDonationAmount: { currency: 'USD', value: '0.00' },
    });
  });
});

describe('GET /1.0/profiles', () => {
  let sorted: Site;
  const LAST_NAMES = ['Adams', 'Baker', 'Clark', 'Davis'];
  /** 120 profiles: last names shared by 30, creation times shared by 3 and all inside one millisecond. */
  before(async () => {
    sorted = await ctx.site();
    for (let i = 0; i < 120; i++) {
      const email = `buyer${String(i).padStart(3, '0')}@example.com`;
      await insertProfile(sorted, {
        email: i % 2 ? email.toUpperCase() : email,
        last_name: LAST_NAMES[(i * 7) % 4],
        created_on: `2026-01-01T00:00:00.${String((i * 7) % 40).padStart(6, '0')}Z`,
        order_count: i % 3 === 0 ? 0 : 1,
        has_account: i % 5 === 0,
      });
    }
  });

  const keys: Record<string, (p: WireProfile) => string> = {
    id: (p) => p.id,
    createdOn: (p) => p.createdOn,
    email: (p) => p.email.toLowerCase(),
    lastName: (p) => p.lastName,
  };
  const compare = (key: (p: WireProfile) => string) => (a: WireProfile, b: WireProfile) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

  test('by default: id descending, 50 a page, to the end', async () => {
    const { profiles, sizes } = await allPages(sorted);
    assert.deepEqual(sizes, [50, 50, 20]);
    const ids = profiles.map((p) => p.id);
    assert.deepEqual(ids, [...ids].sort().reverse());
  });

  for (const sortField of ['createdOn', 'id', 'email', 'lastName']) {
    for (const sortDirection of ['asc', 'dsc']) {
      test(`sortField=${sortField}&sortDirection=${sortDirection}: (${sortField}, id) order kept across pages`, async () => {
        const { profiles, sizes } = await allPages(sorted, { sortField, sortDirection });
        assert.deepEqual(sizes, [50, 50, 20]);
        const expected = [...profiles].sort(compare(keys[sortField]!));
        if (sortDirection === 'dsc') expected.reverse();
        assert.deepEqual(
          profiles.map((p) => p.id),
          expected.map((p) => p.id),
        );
        assert.equal(new Set(profiles.map((p) => p.id)).size, 120, 'each profile once');
      });
    }
  }

  test('filter isCustomer,true and hasAccount,true, alone and together, across pages', async () => {
    const all = (await allPages(sorted)).profiles;
    const customers = (await allPages(sorted, { filter: 'isCustomer,true' })).profiles;
    assert.deepEqual(
      customers.map((p) => p.id),
      all.filter((p) => p.isCustomer).map((p) => p.id),
    );
    assert.equal(customers.length, 80);
    const accounts = (await allPages(sorted, { filter: 'hasAccount,true', sortField: 'email' })).profiles;
    assert.equal(accounts.length, 24);
    assert.ok(accounts.every((p) => p.hasAccount));
    const both = (await allPages(sorted, { filter: 'isCustomer,true;hasAccount,true;' })).profiles;
    assert.deepEqual(
      both.map((p) => p.id),
      all.filter((p) => p.isCustomer && p.hasAccount).map((p) => p.id),
    );
  });

  test('an e-mail, in filter or as its own parameter, matches whatever its case', async () => {
    const [wanted] = (await page(sorted, { filter: 'email,BUYER007@example.com' })).profiles;
    assert.equal(wanted?.email, 'BUYER007@EXAMPLE.COM');
    for (const query of <Record<string, string>[]>[
      { filter: 'email,buyer007@EXAMPLE.com' },
      { email: 'Buyer007@Example.Com' },
      { filter: 'email,buyer007%40example.com' },
      { email: 'buyer007@example.com', sortField: 'lastName' },
    ]) {
      assert.deepEqual(
        (await page(sorted, query)).profiles.map((p) => p.id),
        [wanted!.id],
        JSON.stringify(query),
      );
    }
    const encoded = await sorted.call({
      method: 'GET',
      url: `${PROFILES}?filter=email,buyer007%40example.com`,
    });
    assert.equal(encoded.json().profiles[0].id, wanted!.id, 'as the platform docs write it');
    assert.deepEqual((await page(sorted, { email: 'nobody@example.com' })).profiles, []);
  });

  test('bad filters and sorts are a 400', async () => {
    invalid(
      await list(site, { filter: 'hasAccount,false' }),
      /^filter: hasAccount supports only the value true/,
    );
    invalid(
      await list(site, { filter: 'isCustomer,yes' }),
      /^filter: isCustomer supports only the value true/,
    );
    invalid(await list(site, { filter: 'isSubscriber,true' }), /^filter: unknown filter "isSubscriber"/);
    invalid(await list(site, { filter: 'email,' }), /^filter: email needs an address/);
    invalid(
      await list(site, { filter: 'email,a@example.com;isCustomer,true' }),
      /^filter: email cannot be combined with isCustomer or hasAccount/,
    );
    invalid(
      await list(site, { email: 'a@example.com', filter: 'hasAccount,true' }),
      /^filter: email cannot be combined/,
    );
    invalid(
      await list(site, { email: 'a@example.com', filter: 'email,a@example.com' }),
      /^email: give the address either as the email parameter or in filter, not both/,
    );
    invalid(
      await list(site, { sortField: 'firstName' }),
      /^sortField: must be one of createdOn, id, email, lastName/,
    );
    invalid(await list(site, { sortDirection: 'desc' }), /^sortDirection: must be one of asc, dsc/);
  });

  test('the cursor stands alone and carries the sort and filters; a bad one is a 400', async () => {
    const first = await page(sorted, {
      filter: 'isCustomer,true',
      sortField: 'lastName',
      sortDirection: 'asc',
    });
    const cursor = first.pagination.nextPageCursor as string;
    for (const extra of <Record<string, string>[]>[
      { sortField: 'id' },
      { sortDirection: 'asc' },
      { filter: 'isCustomer,true' },
      { email: 'a@b.c' },
    ]) {
      invalid(
        await list(sorted, { cursor, ...extra }),
        /^Cursor cannot be set while other parameters are present\.$/,
      );
    }
    const second = await page(sorted, { cursor });
    assert.ok(second.profiles.every((p) => p.isCustomer));
    assert.ok(first.profiles.at(-1)!.lastName <= second.profiles[0]!.lastName);
    const [body, signature] = cursor.split('.');
    for (const bad of [
      `${body}x.${signature}`,
      'nonsense',
      ctx.api.cursors.encode('transactions', { w: sorted.websiteId }),
    ]) {
      invalid(await list(sorted, { cursor: bad }), /^cursor: /);
    }
    invalid(await list(site, { cursor }), /^cursor: /);
  });

  test("another website's profiles are never listed", async () => {
    const own = await ctx.site();
    const mine = await record(own, buyer({ email: 'same@example.com' }));
    await record(site, buyer({ email: 'same@example.com' }));
    assert.deepEqual(
      (await allPages(own)).profiles.map((p) => p.id),
      [mine],
    );
    assert.deepEqual(
      (await page(own, { email: 'same@example.com' })).profiles.map((p) => p.id),
      [mine],
    );
  });
});

describe('GET /1.0/profiles/{profileIds}', () => {
  test('in the order asked, any case; more than 50 is a 400', async () => {
    const ids = [await insertProfile(site), await insertProfile(site), await insertProfile(site)];
    const asked = [ids[2]!, ids[0]!.toUpperCase(), ids[1]!];
    const res = await site.call({ method: 'GET', url: `${PROFILES}/${asked.join('%2C')}` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().profiles.map((p: WireProfile) => p.id),
      asked.map((id) => id.toLowerCase()),
    );
    const many = Array.from({ length: 51 }, () => randomBytes(12).toString('hex')).join(',');
    invalid(await site.call({ method: 'GET', url: `${PROFILES}/${many}` }), /^profileIds: at most 50/);
  });

  test('an unknown id, a malformed one, or one of another website is a 404', async () => {
    const own = await insertProfile(site);
    const theirs = await insertProfile(await ctx.site());
    for (const missing of [randomBytes(12).toString('hex'), 'not-an-id', theirs]) {
      const res = await site.call({ method: 'GET', url: `${PROFILES}/${own},${missing}` });
      assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /^profile not found: /);
    }
  });
});

describe('scopes', () => {
  test('reading needs website.profiles.read, which website.profiles implies; website.orders does not', async () => {
    const id = await insertProfile(site);
    const as = async (scopes: string) => {
      const { apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes });
      return withCredential(ctx, site, apiKey).call;
    };
    const urls = [PROFILES, `${PROFILES}/${id}`];
    for (const scopes of ['website.orders', 'website.transactions.read,website.contacts']) {
      const call = await as(scopes);
      for (const url of urls) {
        assertError(await call({ method: 'GET', url }), 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');
      }
    }
    for (const scopes of ['website.profiles.read', 'website.profiles']) {
      const call = await as(scopes);
      for (const url of urls) assert.equal((await call({ method: 'GET', url })).statusCode, 200, scopes);
    }
  });
});
