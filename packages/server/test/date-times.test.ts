import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDiscount, DISCOUNTS, postDiscount } from './helpers/checkout-discounts.ts';
import { CONTACTS, contactBody, createContact, query } from './helpers/contacts.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * The v1 fields the platform types as RFC 3339 date-times take any offset and mean the instant
 * (discounts' validFrom/validTo, 2.7.1; the contacts query's date filters, 2.6.3); the Commerce
 * 1.0 filters documented as UTC stay UTC-only.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const NOT_DATE_TIMES = [
  '2026-01-01T00:00:00', // no offset: a local time, no instant
  '2026-01-01 00:00:00Z',
  '2026-01-01T00:00:00+0100',
  '2026-01-01T00:00:00+24:00',
  '2026-01-01T00:00:00+01:60',
  '2026-02-30T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T00:00:60Z',
  '2026-01-01T00:00:00.Z',
  'tomorrow',
];

describe('discounts: validFrom and validTo', () => {
  test('an offset is accepted and the discount answers with the same instant in UTC', async () => {
    const site = await ctx.site();
    const cases: [string, string][] = [
      ['2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00.000Z'],
      ['2026-01-01T02:00:00.123456+02:00', '2026-01-01T00:00:00.123Z'],
      ['2025-12-31T19:30:00-05:00', '2026-01-01T00:30:00.000Z'],
      ['2026-01-01t00:00:00z', '2026-01-01T00:00:00.000Z'],
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ];
    for (const [sent, seen] of cases) {
      const d = await createDiscount(site, { validFrom: sent, validTo: null });
      const got = (await site.call({ method: 'GET', url: `${DISCOUNTS}/${d.id}` })).json().discount;
      assert.equal(got.validFrom, seen, sent);
    }
    const d = await createDiscount(site, {
      validFrom: '2026-01-01T00:00:00+01:00',
      validTo: '2026-06-30T18:00:00-06:00',
    });
    assert.equal(d.validFrom, '2025-12-31T23:00:00.000Z');
    assert.equal(d.validTo, '2026-07-01T00:00:00.000Z');
  });

  test('validTo is compared as an instant: an hour later in a zone ahead of UTC can be earlier', async () => {
    const site = await ctx.site();
    const res = await postDiscount(site, {
      validFrom: '2026-01-01T00:00:00Z',
      validTo: '2026-01-01T01:00:00+02:00',
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().message, /validTo: must be later than validFrom/);
  });

  test('what is not an RFC 3339 date-time is a 400 naming the field, and nothing is stored', async () => {
    const site = await ctx.site();
    for (const validFrom of NOT_DATE_TIMES) {
      const res = await postDiscount(site, { validFrom });
      assert.equal(res.statusCode, 400, `${validFrom}: ${res.body}`);
      assert.equal(res.json().type, 'INVALID_REQUEST_ERROR');
      assert.match(res.json().message, /^validFrom: must be an RFC 3339 date-time/, validFrom);
    }
    const list = await site.call({ method: 'GET', url: DISCOUNTS });
    assert.deepEqual(list.json().discounts, []);
  });
});

describe('contacts query: date filters', () => {
  test('after and before with an offset filter on the instant they name', async () => {
    const site = await ctx.site();
    const ada = await createContact(site, contactBody({ firstName: 'Ada' }));
    await createContact(site, contactBody({ firstName: 'Grace' }));
    await ctx.db
      .updateTable('profiles')
      .set({ order_count: 1, first_order_on: new Date('2026-01-01T00:30:00Z') })
      .where('id', '=', ada.id)
      .execute();
    const names = async (filter: object) =>
      (await query(site, { firstOrderOn: filter })).contacts.map((c: { firstName: string }) => c.firstName);
    // 01:00+01:00 is midnight UTC, before Ada's order; 01:00Z is after it.
    assert.deepEqual(await names({ after: '2026-01-01T01:00:00+01:00' }), ['Ada']);
    assert.deepEqual(await names({ after: '2026-01-01T01:00:00Z' }), []);
    // before is inclusive: 19:30-05:00 is Ada's order's instant.
    assert.deepEqual(await names({ before: '2025-12-31T19:30:00-05:00' }), ['Ada']);
    assert.deepEqual(await names({ before: '2025-12-31T19:29:59.999999-05:00' }), []);
  });

  test('what is not an RFC 3339 date-time is a 400 naming the filter', async () => {
    const site = await ctx.site();
    for (const after of NOT_DATE_TIMES) {
      const res = await site.call({
        method: 'POST',
        url: `${CONTACTS}/query`,
        payload: { lastOrderOn: { after } },
      });
      assert.equal(res.statusCode, 400, `${after}: ${res.body}`);
      assert.match(res.json().message, /^lastOrderOn.after: must be an RFC 3339 date-time/, after);
    }
  });
});

describe('the Commerce 1.0 filters stay UTC', () => {
  test('an order list modifiedAfter with an offset is a 400, as the platform documents UTC', async () => {
    const site = await ctx.site();
    const res = await site.call({
      method: 'GET',
      url: '/1.0/commerce/orders?modifiedAfter=2026-01-01T00:00:00%2B01:00&modifiedBefore=2026-02-01T00:00:00Z',
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().message, /^modifiedAfter: must be an ISO 8601 UTC time/);
  });
});
