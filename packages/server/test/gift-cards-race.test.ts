import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buyGiftCards, cardByLastFour, giftCardProduct, NO_CARD } from './helpers/gift-cards.ts';
import { seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * The last of a gift card's balance spent twice at once: the card's row lock makes the checkouts
 * one at a time, so one order is placed and the other is refused with nothing charged, round
 * after round.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(async () => {
  await ctx.close();
});

const ordersOfSite = async () =>
  (await ctx.db.selectFrom('orders').select('id').where('website_id', '=', site.websiteId).execute()).length;

test('two checkouts spending the last 25.00 of a card at once: one order, one refusal, the balance 0 never below', async () => {
  const { of25 } = await giftCardProduct(site);
  const { medium } = await shirt(site, 100);
  for (let round = 0; round < 6; round++) {
    const { codes } = await buyGiftCards(ctx, site, of25);
    const code = codes[0]!;
    // Each cart: one shirt, 20.00 and 5.00 shipping, which the card's 25.00 pays in full.
    const shoppers = [new Shopper(ctx, site.websiteId), new Shopper(ctx, site.websiteId)];
    for (const shopper of shoppers) seeOther(await shopper.add(medium, 1));
    const before = await ordersOfSite();
    const answers = await Promise.all(
      shoppers.map((shopper) => shopper.checkout({ giftCardCode: code, ...NO_CARD })),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [303, 400], `round ${round}`);
    const refused = answers.find((a) => a.statusCode === 400)!;
    assert.match(text(refused), /This gift card has no balance left\. Nothing was charged\./);
    assert.equal(await ordersOfSite(), before + 1, 'one order placed');
    const card = await cardByLastFour(ctx, site.websiteId, code);
    assert.equal(card.balance_minor, 0);
    const spent = await ctx.db
      .selectFrom('gift_card_events')
      .select('amount_minor')
      .where('gift_card_id', '=', card.id)
      .where('kind', '=', 'REDEEMED')
      .execute();
    assert.deepEqual(
      spent.map((e) => e.amount_minor),
      [2500],
      'spent once',
    );
  }
});

test('with a card in the form too, the second pays nothing from the spent card and is refused, not charged in full', async () => {
  const { of25 } = await giftCardProduct(site);
  const { medium } = await shirt(site, 100);
  const { codes } = await buyGiftCards(ctx, site, of25);
  const shoppers = [new Shopper(ctx, site.websiteId), new Shopper(ctx, site.websiteId)];
  for (const shopper of shoppers) seeOther(await shopper.add(medium, 2));
  const answers = await Promise.all(shoppers.map((shopper) => shopper.checkout({ giftCardCode: codes[0]! })));
  assert.deepEqual(answers.map((a) => a.statusCode).sort(), [303, 400]);
  assert.match(text(answers.find((a) => a.statusCode === 400)!), /no balance left/);
});
