import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { refundOrder, type RefundInput } from '../src/orders/refund-order.ts';
import { buyGiftCards, cardByLastFour, giftCardProduct, NO_CARD } from './helpers/gift-cards.ts';
import { apiOrder, documentOf } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Refunds of orders gift cards touch: one paid by gift card and card gives back the card's payment
 * first, then the gift card's balance, to the cent; one that bought gift cards disables the cards
 * refunded, and is refused once they are spent. The owner's gift card pages and Disable.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

const usd = (value: string) => ({ currency: 'USD', value });
const amount = (otherMinor: number): RefundInput => ({
  full: false,
  restock: false,
  lines: [],
  shipping: false,
  otherMinor,
});
const everything: RefundInput = { full: true, restock: false, lines: [], shipping: false, otherMinor: 0 };

/** An order of two shirts (45.00 with shipping) paid 25.00 by a new gift card and 20.00 by card. */
async function paidByBoth(site: Site) {
  const { of25 } = await giftCardProduct(site);
  const { codes } = await buyGiftCards(ctx, site, of25);
  const { medium } = await shirt(site, 5);
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(medium, 2));
  const location = seeOther(await shopper.checkout({ giftCardCode: codes[0]! }));
  const orderId = /orders\/([0-9a-f]{24})$/.exec(location)![1]!;
  return { orderId, code: codes[0]! };
}

const historyOf = (giftCardId: string) =>
  ctx.db
    .selectFrom('gift_card_events')
    .select(['kind', 'amount_minor', 'balance_minor'])
    .where('gift_card_id', '=', giftCardId)
    .orderBy('happened_on')
    .orderBy('id')
    .execute();

/** The text of the order's newest refund notice. */
async function refundNotice(orderId: string): Promise<string> {
  const email = await ctx.db
    .selectFrom('emails')
    .select('text')
    .where('order_id', '=', orderId)
    .where('kind', '=', 'refund_notice')
    .orderBy('created_on', 'desc')
    .executeTakeFirstOrThrow();
  return email.text.replace(/\s+/g, ' ');
}

describe('refunds of an order paid by gift card and card', () => {
  test('30.00 then the rest: the card first (20.00), then the gift card (10.00, then 15.00), exact to the cent', async () => {
    const site = await ctx.site();
    const { orderId, code } = await paidByBoth(site);
    const card = await cardByLastFour(ctx, site.websiteId, code);
    assert.equal(card.balance_minor, 0);

    await refundOrder(ctx.api, site.websiteId, orderId, amount(3000));
    let document = await documentOf(site, orderId);
    const [gift, paid] = document.payments;
    assert.deepEqual(paid.refundedAmount, usd('20.00'), 'the card is refunded first, all of it');
    assert.deepEqual(paid.netAmount, usd('-0.88'), 'its fee kept');
    assert.match(paid.refunds[0].externalTransactionId, /^re_test_/);
    assert.deepEqual(gift.refundedAmount, usd('10.00'));
    assert.deepEqual(gift.netAmount, usd('15.00'));
    assert.match(gift.refunds[0].externalTransactionId, /^gc_test_/);
    assert.deepEqual(gift.refunds[0].amount, usd('10.00'));
    assert.deepEqual(document.totalNetPayment, usd('14.12'), '44.12 less the 30.00');
    assert.equal((await cardByLastFour(ctx, site.websiteId, code)).balance_minor, 1000);
    assert.match(
      await refundNotice(orderId),
      /has refunded 30\.00 USD for your order #\d+\. Of it, 10\.00 USD goes back on the gift card you paid with, ready to spend, and the rest to the card you paid with/,
    );
    let order = await apiOrder(site, orderId);
    assert.deepEqual(order.refundedTotal, usd('30.00'));
    assert.equal(order.paymentState, 'PAID');

    await refundOrder(ctx.api, site.websiteId, orderId, everything);
    document = await documentOf(site, orderId);
    assert.deepEqual(document.payments[0].refundedAmount, usd('25.00'));
    assert.deepEqual(document.payments[1].refundedAmount, usd('20.00'));
    assert.deepEqual(document.totalNetPayment, usd('-0.88'));
    order = await apiOrder(site, orderId);
    assert.deepEqual(order.refundedTotal, usd('45.00'));
    assert.equal(order.paymentState, 'REFUNDED');
    assert.equal((await cardByLastFour(ctx, site.websiteId, code)).balance_minor, 2500);
    assert.deepEqual(
      (await historyOf(card.id)).map((e) => [e.kind, e.amount_minor, e.balance_minor]),
      [
        ['ISSUED', 2500, 2500],
        ['REDEEMED', 2500, 0],
        ['REFUNDED', 1000, 1000],
        ['REFUNDED', 1500, 2500],
      ],
    );
  });

  test('canceling with the refund gives the gift card its part back too', async () => {
    const site = await ctx.site();
    const { orderId, code } = await paidByBoth(site);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true, refund: true });
    const order = await apiOrder(site, orderId);
    assert.equal(order.fulfillmentStatus, 'CANCELED');
    assert.equal(order.paymentState, 'REFUNDED');
    assert.equal((await cardByLastFour(ctx, site.websiteId, code)).balance_minor, 2500);
  });

  test('an order the gift card paid in full is refunded to the gift card alone', async () => {
    const site = await ctx.site();
    const { of50 } = await giftCardProduct(site);
    const { codes } = await buyGiftCards(ctx, site, of50);
    const { medium } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(medium, 1));
    const location = seeOther(await shopper.checkout({ giftCardCode: codes[0]!, ...NO_CARD }));
    const orderId = /orders\/([0-9a-f]{24})$/.exec(location)![1]!;
    assert.equal((await cardByLastFour(ctx, site.websiteId, codes[0]!)).balance_minor, 2500);
    await refundOrder(ctx.api, site.websiteId, orderId, amount(1234));
    assert.equal((await cardByLastFour(ctx, site.websiteId, codes[0]!)).balance_minor, 3734);
    const document = await documentOf(site, orderId);
    assert.deepEqual(document.payments[0].refundedAmount, usd('12.34'));
    assert.match(
      await refundNotice(orderId),
      /has refunded 12\.34 USD for your order #\d+\. It goes back on the gift card you paid with, ready to spend\./,
    );
    assert.deepEqual(document.totalNetPayment, usd('12.66'));
  });
});

describe('refunds of an order that bought gift cards', () => {
  test('refunding one of two cards disables an unspent one; once both are spent, refunding them is refused', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const { orderId, codes } = await buyGiftCards(ctx, site, of25, 2);
    const order = await apiOrder(site, orderId);
    const lineId = order.lineItems[0].id;
    await refundOrder(ctx.api, site.websiteId, orderId, { ...amount(0), lines: [{ lineId, quantity: 1 }] });
    const cards = await Promise.all(codes.map((code) => cardByLastFour(ctx, site.websiteId, code)));
    const states = cards.map((c) => `${c.state}:${c.balance_minor}`).sort();
    assert.deepEqual(states, ['ACTIVE:2500', 'DISABLED:0']);
    assert.deepEqual((await apiOrder(site, orderId)).refundedTotal, usd('25.00'));

    // Spend the one left (partly), then ask to refund it: refused, nothing changed.
    const left = cards.find((c) => c.state === 'ACTIVE')!;
    const code = codes.find((c) => c.endsWith(left.last_four))!;
    const { medium } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(medium, 1));
    seeOther(await shopper.checkout({ giftCardCode: code }));
    await assert.rejects(
      refundOrder(ctx.api, site.websiteId, orderId, { ...amount(0), lines: [{ lineId, quantity: 1 }] }),
      /0 of its gift cards are unspent and can be refunded, not 1/,
    );
    await assert.rejects(refundOrder(ctx.api, site.websiteId, orderId, everything), /cannot be refunded/);
    assert.deepEqual((await apiOrder(site, orderId)).refundedTotal, usd('25.00'));
    assert.equal((await cardByLastFour(ctx, site.websiteId, code)).state, 'ACTIVE');
  });
});

describe("the owner's gift card pages", () => {
  test('the list, a card with its history, and Disable (CSRF-protected), which stops it paying', async () => {
    const site = await ctx.site();
    const { orderId, code } = await paidByBoth(site);
    const card = await cardByLastFour(ctx, site.websiteId, code);
    const browser = await signedInOwner(ctx, site);
    const home = await browser.get(`/sites/${site.websiteId}`);
    assert.match(home.body, new RegExp(`href="/sites/${site.websiteId}/gift-cards">Gift cards</a>`));
    const list = await browser.get(`/sites/${site.websiteId}/gift-cards`);
    assert.equal(list.statusCode, 200);
    assert.match(text(list), new RegExp(`····${card.last_four} 25\\.00 USD 0\\.00 USD Active #\\d+`));
    assert.ok(!list.body.includes(code), 'the page never shows a code');

    const url = `/sites/${site.websiteId}/gift-cards/${card.id}`;
    const page = await browser.get(url);
    assert.equal(page.statusCode, 200);
    const history = text(page);
    assert.match(history, /Issued \+25\.00 USD 25\.00 USD/);
    assert.match(history, /Spent −25\.00 USD 0\.00 USD #\d+/);
    assert.ok(
      page.body.includes(`/sites/${site.websiteId}/orders/${orderId}`),
      'the order it paid is linked',
    );

    const forged = await browser.post(`${url}/disable`, { csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
    assert.equal((await cardByLastFour(ctx, site.websiteId, code)).state, 'ACTIVE');

    // 25.00 refunded: the card's 20.00, then 5.00 back on the gift card, which the Disable takes.
    await refundOrder(ctx.api, site.websiteId, orderId, amount(2500));
    await browser.get(url);
    const disabled = await browser.post(`${url}/disable`, { csrf: browser.csrf });
    assert.equal(disabled.statusCode, 303, disabled.body);
    const after = await browser.get(String(disabled.headers.location));
    assert.match(text(after), /Gift card disabled\./);
    assert.match(text(after), /Disabled −5\.00 USD 0\.00 USD/);
    assert.doesNotMatch(after.body, /\/disable"/, 'no Disable button on a disabled card');

    const { medium } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(medium, 1));
    const refused = await shopper.checkout({ giftCardCode: code });
    assert.equal(refused.statusCode, 400);
    assert.match(text(refused), /This gift card has been disabled/);

    const stranger = await signedInOwner(ctx, await ctx.site());
    assert.equal((await stranger.get(url)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${site.websiteId}/gift-cards/not-a-card`)).statusCode, 404);
  });
});
