import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { refundOrder } from '../src/orders/refund-order.ts';
import { createDiscount } from './helpers/checkout-discounts.ts';
import { buyGiftCards, cardByLastFour, giftCardProduct, NO_CARD } from './helpers/gift-cards.ts';
import { documentOf } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { GOOD_CHECKOUT, seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * The gift card applied at checkout before the order is placed: the page shows what the card pays
 * of the order and what is left for the card, or why it cannot pay, with the code nowhere but in
 * the form's fields; the order placed from that page is checked again (a balance spent meanwhile
 * is refused, nothing charged). The owner's order page lists the order's payments.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

/** The hidden fields of the page's order form, as a browser sends them with Place order. */
function orderForm(res: LightMyRequestResponse): Record<string, string> {
  const form = /<form method="post" action="[^"]*\/checkout" class="checkout">([\s\S]*?)<\/form>/.exec(
    res.body,
  );
  assert.ok(form, 'the order form');
  const fields: Record<string, string> = {};
  for (const m of form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields[m[1]!] = m[2]!;
  }
  return fields;
}

/** A shopper with `quantity` shirts (20.00 each, 5.00 shipping) in the cart, on the checkout page. */
async function atCheckout(site: Site, quantity: number) {
  const { medium } = await shirt(site, 10);
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(medium, quantity));
  assert.equal((await shopper.get(`${shopper.root}/checkout`)).statusCode, 200);
  return shopper;
}

const apply = (shopper: Shopper, giftCardCode: string) =>
  shopper.post(`${shopper.root}/checkout`, { promoCode: '', giftCardCode, action: 'apply' });

const orderCount = async (site: Site) =>
  (await ctx.db.selectFrom('orders').select('id').where('website_id', '=', site.websiteId).execute()).length;

describe('applying a gift card before placing the order', () => {
  test('the page shows the card, its balance and the split; the code only in the fields; the order pays as shown', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of25)).codes;
    const last = code!.slice(-4);
    const shopper = await atCheckout(site, 2);
    // Typed as a shopper may: lower case, spaces for hyphens.
    const typed = code!.toLowerCase().replace(/-/g, ' ');
    const res = await apply(shopper, typed);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const page = text(res);
    assert.match(
      page,
      new RegExp(`Gift card ····${last} \\(balance \\$25\\.00\\) pays \\$25\\.00; card pays \\$20\\.00\\.`),
    );
    assert.match(
      page,
      new RegExp(`Gift card ····${last} pays \\$25\\.00; the card pays the other \\$20\\.00\\.`),
    );
    assert.match(res.body, /aria-describedby="f-giftCardCode-status"/);
    assert.match(res.body, /id="f-giftCardCode-status" role="status"/);
    // The code is in the field the shopper typed it in and in the order form's hidden field, nowhere else.
    assert.equal(res.body.split(typed).length - 1, 2);
    const chars = code!.replace(/-/g, '');
    const rest = res.body.replaceAll(`value="${typed}"`, '').toUpperCase().replace(/[\s-]/g, '');
    assert.ok(!rest.includes(chars), 'the code is in no text, attribute or address of the page');
    assert.ok(!page.toUpperCase().replace(/[\s-]/g, '').includes(chars));

    const fields = orderForm(res);
    assert.equal(fields.giftCardCode, typed);
    assert.equal(fields.giftCardPays, '2500');
    assert.equal(fields.shownTotal, '4500');
    const placed = await shopper.post(`${shopper.root}/checkout`, { ...GOOD_CHECKOUT, ...fields });
    const location = seeOther(placed);
    assert.ok(!location.toUpperCase().replace(/-/g, '').includes(chars), 'no code in an address');
    assert.match(
      text(await shopper.get(location)),
      new RegExp(`Gift card ····${last} paid \\$25\\.00, the card \\$20\\.00\\.`),
    );
    const orderId = /orders\/([0-9a-f]{24})$/.exec(location)![1]!;
    const document = await documentOf(site, orderId);
    assert.deepEqual(
      document.payments.map((p: { amount: { value: string } }) => p.amount.value),
      ['25.00', '20.00'],
    );
    assert.equal((await cardByLastFour(ctx, site.websiteId, code!)).balance_minor, 0);
  });

  test('a card that covers the total says so, and the order needs no card', async () => {
    const site = await ctx.site();
    const { of50 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of50)).codes;
    const shopper = await atCheckout(site, 1);
    const res = await apply(shopper, code!);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(text(res), /\(balance \$50\.00\) pays \$25\.00; card pays \$0\.00\./);
    assert.match(text(res), /pays the whole total of \$25\.00: leave the card empty\./);
    const placed = await shopper.post(`${shopper.root}/checkout`, {
      ...GOOD_CHECKOUT,
      ...NO_CARD,
      ...orderForm(res),
    });
    seeOther(placed);
    assert.equal((await cardByLastFour(ctx, site.websiteId, code!)).balance_minor, 2500);
  });

  test("refused beside the field with the words of the order: unknown, another site's, disabled, spent; nothing carried on or changed", async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const { of25: theirs } = await giftCardProduct(other);
    const [spent] = (await buyGiftCards(ctx, site, of25)).codes;
    const [otherCode] = (await buyGiftCards(ctx, other, theirs)).codes;
    const [disabledCode] = (await buyGiftCards(ctx, site, of25)).codes;
    await ctx.db
      .updateTable('gift_cards')
      .set({ state: 'DISABLED', balance_minor: 0 })
      .where('id', '=', (await cardByLastFour(ctx, site.websiteId, disabledCode!)).id)
      .execute();
    const spender = new Shopper(ctx, site.websiteId);
    seeOther(await spender.add(of25, 1));
    seeOther(await spender.checkout({ giftCardCode: spent!, ...NO_CARD }));

    const shopper = await atCheckout(site, 1);
    const before = await orderCount(site);
    const cases: [string, string][] = [
      ['ZZZZ-ZZZZ-ZZZZ-ZZZZ', 'No gift card has this code. Check the code and try again.'],
      ['not a code', 'No gift card has this code. Check the code and try again.'],
      [otherCode!, 'No gift card has this code. Check the code and try again.'],
      [disabledCode!, 'This gift card has been disabled and cannot be used.'],
      [spent!, 'This gift card has no balance left.'],
    ];
    for (const [code, message] of cases) {
      const res = await apply(shopper, code);
      assert.equal(res.statusCode, 400, code);
      const error =
        /<p class="field-error sale" id="f-giftCardCode-error" role="status">\s*([^<]*?)\s*<\/p>/.exec(
          res.body,
        );
      assert.equal(error?.[1], message, code);
      assert.match(
        res.body,
        /aria-invalid="true"\s+aria-describedby="f-giftCardCode-error"|aria-describedby="f-giftCardCode-error"\s+aria-invalid="true"/,
      );
      assert.equal(orderForm(res).giftCardCode, undefined, 'a refused code is not carried to the order');
      assert.doesNotMatch(text(res), /card pays \$/);
    }
    assert.equal(await orderCount(site), before);
    assert.equal((await cardByLastFour(ctx, other.websiteId, otherCode!)).balance_minor, 2500);
  });

  test('applied, then spent meanwhile: placing is refused, nothing charged, no order', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of25)).codes;
    const shopper = await atCheckout(site, 2);
    const fields = orderForm(await apply(shopper, code!));
    assert.equal(fields.giftCardPays, '2500');
    const spender = new Shopper(ctx, site.websiteId);
    seeOther(await spender.add(of25, 1));
    seeOther(await spender.checkout({ giftCardCode: code!, ...NO_CARD }));

    const before = await orderCount(site);
    const res = await shopper.post(`${shopper.root}/checkout`, { ...GOOD_CHECKOUT, ...fields });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(text(res), /This gift card has no balance left\. Nothing was charged\./);
    assert.match(res.body, /id="f-giftCardCode-error"/);
    assert.equal(await orderCount(site), before);
  });

  test('applied, then partly spent meanwhile: refused rather than charging the card more than shown', async () => {
    const site = await ctx.site();
    const { of25, of50 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of50)).codes;
    const shopper = await atCheckout(site, 2);
    const shown = await apply(shopper, code!);
    assert.match(text(shown), /pays \$45\.00; card pays \$0\.00\./);
    const fields = orderForm(shown);
    // Another order spends 25.00 of the 50.00.
    const spender = new Shopper(ctx, site.websiteId);
    seeOther(await spender.add(of25, 1));
    seeOther(await spender.checkout({ giftCardCode: code!, ...NO_CARD }));

    const before = await orderCount(site);
    const res = await shopper.post(`${shopper.root}/checkout`, { ...GOOD_CHECKOUT, ...fields });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(
      text(res),
      /This gift card's balance is now \$25\.00, so it pays \$25\.00, not the \$45\.00 shown\. Apply it again to see what the card pays\. Nothing was charged\./,
    );
    assert.equal(await orderCount(site), before);
    assert.equal((await cardByLastFour(ctx, site.websiteId, code!)).balance_minor, 2500);
    // Applied again: the new split, and the order placed with it.
    const again = await apply(shopper, code!);
    assert.match(text(again), /\(balance \$25\.00\) pays \$25\.00; card pays \$20\.00\./);
    seeOther(await shopper.post(`${shopper.root}/checkout`, { ...GOOD_CHECKOUT, ...orderForm(again) }));
  });
});

describe('the total falling after the gift card was applied', () => {
  test('the gift card pays less only because the total fell: the order is placed, the card still not needed', async () => {
    const site = await ctx.site();
    const { of50 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of50)).codes;
    const shopper = await atCheckout(site, 2);
    const fields = orderForm(await apply(shopper, code!));
    assert.deepEqual([fields.shownTotal, fields.giftCardPays], ['4500', '4500']);
    // 10 % off the 40.00 of shirts from now on: 41.00 in all.
    await createDiscount(site, {});
    seeOther(await shopper.post(`${shopper.root}/checkout`, { ...GOOD_CHECKOUT, ...NO_CARD, ...fields }));
    assert.equal((await cardByLastFour(ctx, site.websiteId, code!)).balance_minor, 900);
  });
});

describe("the owner's order page", () => {
  test('lists the payments of an order a gift card paid: the gift card linked to its page, the card by brand, each refund', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const [code] = (await buyGiftCards(ctx, site, of25)).codes;
    const card = await cardByLastFour(ctx, site.websiteId, code!);
    const shopper = await atCheckout(site, 2);
    const location = seeOther(await shopper.checkout({ giftCardCode: code! }));
    const orderId = /orders\/([0-9a-f]{24})$/.exec(location)![1]!;
    await refundOrder(ctx.api, site.websiteId, orderId, {
      full: false,
      restock: false,
      lines: [],
      shipping: false,
      otherMinor: 2250,
    });

    const browser = await signedInOwner(ctx, site);
    const page = await browser.get(`/sites/${site.websiteId}/orders/${orderId}`);
    assert.equal(page.statusCode, 200, page.body);
    // 22.50 refunded: the card's 20.00 first, then 2.50 of the gift card's.
    assert.match(
      text(page),
      new RegExp(
        `Payments Paid with Amount Refunded Gift card ····${card.last_four} 25\\.00 USD 2\\.50 USD Card \\(Visa\\) 20\\.00 USD 20\\.00 USD`,
      ),
    );
    const link = `/sites/${site.websiteId}/gift-cards/${card.id}`;
    assert.ok(page.body.includes(`href="${link}">Gift card ····${card.last_four}</a>`));
    assert.equal((await browser.get(link)).statusCode, 200);
    assert.ok(!page.body.toUpperCase().includes(code!.replace(/-/g, '')) && !page.body.includes(code!));

    // Paid by the gift card alone: one payment. Paid by card alone: no list.
    const { of50 } = await giftCardProduct(site);
    const [big] = (await buyGiftCards(ctx, site, of50)).codes;
    const whole = await atCheckout(site, 1);
    const wholeId = /orders\/([0-9a-f]{24})$/.exec(
      seeOther(await whole.checkout({ giftCardCode: big!, ...NO_CARD })),
    )![1];
    const wholePage = text(await browser.get(`/sites/${site.websiteId}/orders/${wholeId}`));
    assert.match(wholePage, /Paid with Amount Refunded Gift card ····\w{4} 25\.00 USD 0\.00 USD Customer/);
    const byCard = await atCheckout(site, 1);
    const byCardId = /orders\/([0-9a-f]{24})$/.exec(seeOther(await byCard.checkout()))![1];
    assert.doesNotMatch(text(await browser.get(`/sites/${site.websiteId}/orders/${byCardId}`)), /Paid with/);
  });
});
