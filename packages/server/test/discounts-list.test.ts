import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DiscountPage } from '../src/discounts/discounts.schemas.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** `GET /v1/commerce/discounts` (platform-surface 2.7.3): offset pages, every sort and filter. */

const PATH = '/v1/commerce/discounts';
const DAY = 24 * 3600_000;

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

interface Wire {
  id: string;
  name: string;
  trigger: { type: string; promoCode?: string };
  status: string;
}

const make = (s: Site, name: string, overrides: Record<string, unknown> = {}) =>
  s
    .call({
      method: 'POST',
      url: PATH,
      payload: {
        name,
        criteria: { type: 'ANY_ORDER' },
        template: { type: 'PERCENTAGE', percentage: 5 },
        trigger: { type: 'CODE', promoCode: name },
        validFrom: '2025-12-01T00:00:00Z',
        ...overrides,
      },
    })
    .then((res) => {
      assert.equal(res.statusCode, 201, res.body);
      return res.json().discount as Wire;
    });

async function page(s: Site, query: Record<string, string | string[]> = {}) {
  const res = await s.call({ method: 'GET', url: PATH, query });
  assert.equal(res.statusCode, 200, res.body);
  assertShape(DiscountPage, res.json());
  return res.json() as { discounts: Wire[]; hasNextPage: boolean; hasPreviousPage: boolean };
}
const names = async (s: Site, query: Record<string, string | string[]> = {}) =>
  (await page(s, query)).discounts.map((d) => d.name);

test('a website without discounts: an empty page, 200', async () => {
  assert.deepEqual(await page(await ctx.site()), {
    discounts: [],
    hasNextPage: false,
    hasPreviousPage: false,
  });
});

test('offset pages, newest first by default, with hasNextPage and hasPreviousPage', async () => {
  const s = await ctx.site();
  for (const name of ['A1', 'A2', 'A3', 'A4', 'A5']) await make(s, name);
  const pages = [];
  for (const offset of ['0', '2', '4']) {
    const p = await page(s, { offset, limit: '2' });
    pages.push([p.discounts.map((d) => d.name), p.hasPreviousPage, p.hasNextPage]);
  }
  assert.deepEqual(pages, [
    [['A5', 'A4'], false, true],
    [['A3', 'A2'], true, true],
    [['A1'], true, false],
  ]);
  assert.deepEqual(await page(s, { offset: '10' }), {
    discounts: [],
    hasNextPage: false,
    hasPreviousPage: true,
  });
  assert.deepEqual(await names(s, { sortDirection: 'ASCENDING' }), ['A1', 'A2', 'A3', 'A4', 'A5']);
  assert.equal((await page(s, { limit: '1000' })).discounts.length, 5);
});

test('bad paging or an unknown value: 400 naming the parameter', async () => {
  const s = await ctx.site();
  const bad = async (query: Record<string, string>, message: RegExp) =>
    assertError(
      await s.call({ method: 'GET', url: PATH, query }),
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      message,
    );
  await bad({ limit: '0' }, /limit: a whole number from 1 to 1000/);
  await bad({ limit: '1001' }, /limit: a whole number from 1 to 1000/);
  await bad({ limit: 'ten' }, /limit/);
  await bad({ offset: '-1' }, /offset: a whole number from 0/);
  await bad({ sortBy: 'NAME' }, /sortBy: must be one of/);
  await bad({ sortDirection: 'dsc' }, /sortDirection: must be one of/);
  await bad({ status: 'LIVE' }, /status: must be one of/);
  await bad({ criteria: 'ANY_ORDER,EVERYTHING' }, /criteria: unknown value "EVERYTHING"/);
  await bad({ template: 'HALF' }, /template: unknown value "HALF"/);
  await bad({ trigger: 'MANUAL' }, /trigger: unknown value "MANUAL"/);
  await bad({ limitedUseOnly: 'yes' }, /limitedUseOnly: must be one of/);
});

test('sortBy PROMO_CODE ignores case and puts AUTO discounts after the codes; USES_COUNT by uses', async () => {
  const s = await ctx.site();
  const b = await make(s, 'b-code');
  await make(s, 'C-code');
  const auto = await make(s, 'auto', { trigger: { type: 'AUTO' } });
  await make(s, 'a-code');
  assert.deepEqual(await names(s, { sortBy: 'PROMO_CODE', sortDirection: 'ASCENDING' }), [
    'a-code',
    'b-code',
    'C-code',
    'auto',
  ]);
  assert.deepEqual(await names(s, { sortBy: 'PROMO_CODE' }), ['auto', 'C-code', 'b-code', 'a-code']);
  await ctx.db.updateTable('discounts').set({ number_of_uses: 7 }).where('id', '=', b.id).execute();
  await ctx.db.updateTable('discounts').set({ number_of_uses: 3 }).where('id', '=', auto.id).execute();
  assert.deepEqual((await names(s, { sortBy: 'USES_COUNT' })).slice(0, 2), ['b-code', 'auto']);
});

test('filters: search, status, criteria, template, trigger, limitedUseOnly, combined', async () => {
  const s = await ctx.site();
  const now = ctx.clock.now().getTime();
  await make(s, 'Summer_Sale', {
    template: { type: 'FIXED_AMOUNT', discountAmount: { currency: 'USD', value: '5.00' } },
  });
  await make(s, 'WINTER', { validFrom: new Date(now + 10 * DAY).toISOString() });
  await make(s, 'Spring', {
    criteria: { type: 'CART_TOTAL', minimumCartTotal: { currency: 'USD', value: '20.00' } },
    template: { type: 'FREE_SHIPPING' },
    trigger: { type: 'AUTO' },
    isLimitedUses: true,
    maxUsesAllowed: 10,
  });
  await make(s, 'Autumn', { validTo: new Date(now + DAY).toISOString() });
  await make(s, 'Used', { isLimitedUses: true, maxUsesAllowed: 1 });
  await ctx.db.updateTable('discounts').set({ number_of_uses: 1 }).where('name', '=', 'Used').execute();
  const sorted = async (query: Record<string, string | string[]>) => (await names(s, query)).sort();

  assert.deepEqual(await sorted({ search: 'sum' }), ['Summer_Sale'], 'in the name, any case');
  assert.deepEqual(await sorted({ status: 'SCHEDULED' }), ['WINTER']);
  assert.deepEqual(await sorted({ status: 'ACTIVE' }), ['Autumn', 'Spring', 'Summer_Sale']);
  assert.deepEqual(await sorted({ status: 'EXPIRED' }), ['Used'], 'used up');
  assert.deepEqual(await sorted({ status: 'ALL' }), ['Autumn', 'Spring', 'Summer_Sale', 'Used', 'WINTER']);
  ctx.clock.advance(DAY);
  assert.deepEqual(await sorted({ status: 'EXPIRED' }), ['Autumn', 'Used'], 'past validTo');
  assert.deepEqual(await sorted({ criteria: 'CART_TOTAL' }), ['Spring']);
  assert.deepEqual(await sorted({ template: 'FIXED_AMOUNT,FREE_SHIPPING' }), ['Spring', 'Summer_Sale']);
  assert.deepEqual(
    await sorted({ template: ['FIXED_AMOUNT', 'FREE_SHIPPING'] }),
    ['Spring', 'Summer_Sale'],
    'repeated',
  );
  assert.deepEqual(await sorted({ trigger: 'AUTO' }), ['Spring']);
  assert.deepEqual(await sorted({ trigger: 'AUTO,CODE' }), [
    'Autumn',
    'Spring',
    'Summer_Sale',
    'Used',
    'WINTER',
  ]);
  assert.deepEqual(await sorted({ limitedUseOnly: 'true' }), ['Spring', 'Used']);
  assert.deepEqual(await sorted({ limitedUseOnly: 'true', status: 'ACTIVE', trigger: 'AUTO' }), ['Spring']);
  const statuses = (await page(s, { search: 'Used' })).discounts.map((d) => d.status);
  assert.deepEqual(statuses, ['EXPIRED']);
});

test('search takes % and _ as characters, not wildcards', async () => {
  const s = await ctx.site();
  await make(s, 'PRESS');
  await make(s, 'R_S');
  await make(s, 'Half', { name: '50% off' });
  await make(s, 'Named', { trigger: { type: 'CODE', promoCode: 'XYZCODE' } });
  assert.deepEqual(await names(s, { search: 'xyzc' }), ['Named'], 'in the promo code, any case');
  assert.deepEqual(await names(s, { search: 'r_s' }), ['R_S']);
  assert.deepEqual(await names(s, { search: '%' }), ['50% off']);
});

test("another website's discounts are never listed", async () => {
  const mine = await ctx.site();
  const theirs = await ctx.site();
  await make(theirs, 'THEIRS');
  await make(mine, 'MINE');
  assert.deepEqual(await names(mine), ['MINE']);
});
