import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cartOfShirts, createDiscount } from './helpers/checkout-discounts.ts';
import { seeOther, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * A code that does not apply says why, in plain words: one no discount has, one not valid yet, one
 * past its end, one whose limited uses are all taken. The test clock reads 2026-01-01.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

async function applied(site: Site, promoCode: string): Promise<string> {
  const { shopper } = await cartOfShirts(ctx, site);
  const res = await shopper.post(`/s/${site.websiteId}/checkout`, { promoCode, action: 'apply' });
  assert.equal(res.statusCode, 200, res.body);
  return text(res);
}

test('a code not valid yet, one past its end and an unknown one are each told as such', async () => {
  const site = await ctx.site();
  await createDiscount(site, {
    trigger: { type: 'CODE', promoCode: 'SPRING' },
    validFrom: '2026-03-01T00:00:00Z',
  });
  await createDiscount(site, {
    trigger: { type: 'CODE', promoCode: 'AUTUMN' },
    validFrom: '2025-09-01T00:00:00Z',
    validTo: '2025-11-30T00:00:00Z',
  });
  assert.match(await applied(site, 'spring'), /The code spring is not valid yet\./);
  assert.match(await applied(site, 'AUTUMN'), /The code AUTUMN has expired\./);
  assert.match(await applied(site, 'WINTER'), /We do not know the code WINTER\./);
});

test('a limited code whose uses are all taken says so, not that it is unknown', async () => {
  const site = await ctx.site();
  await createDiscount(site, {
    trigger: { type: 'CODE', promoCode: 'FIRST10' },
    isLimitedUses: true,
    maxUsesAllowed: 1,
  });
  const { shopper } = await cartOfShirts(ctx, site);
  seeOther(await shopper.checkout({ promoCode: 'FIRST10', shownTotal: '5000' }));
  assert.match(
    await applied(site, 'FIRST10'),
    /The code FIRST10 is no longer available: it has been used as often as it may be\./,
  );
});
