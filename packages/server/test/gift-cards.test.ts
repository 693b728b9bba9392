import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { CODE_ALPHABET, newGiftCardCode, normalizeCode } from '../src/giftcards/gift-card-codes.ts';
import { buyGiftCards, cardByLastFour, CODE, giftCardProduct, NO_CARD } from './helpers/gift-cards.ts';
import { apiOrder, documentOf } from './helpers/orders.ts';
import { seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type Received } from './helpers/webhooks.ts';

/**
 * Gift cards bought and spent in the store: the codes (their form, and that the database keeps
 * none), the order line of a purchase and its signed order.create, the confirmation and its
 * e-mail, and paying with a card partly and fully, with the transaction document's two payments.
 */

const TOKEN = 'emp_test_gift-cards-token-0123456789';
let ctx: TestContext;
let receiver: Receiver;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', webhookWorkers: 1, testControlsToken: TOKEN });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

const usd = (value: string) => ({ currency: 'USD', value });

function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

/** Every table that could hold a code, as text. */
async function everythingStored(): Promise<string> {
  const tables = [
    'gift_cards',
    'gift_card_events',
    'emails',
    'orders',
    'transaction_documents',
    'order_refunds',
  ];
  const dumps = await Promise.all(
    tables.map(async (table) => {
      const { rows } = await sql<{
        row: string;
      }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table)} t`.execute(ctx.db);
      return rows.map((r) => r.row).join('\n');
    }),
  );
  return dumps.join('\n');
}

/** A shopper's checkout of the cart `lines` with these fields; the response. */
async function checkoutWith(site: Site, lines: [string, number][], fields: Record<string, string>) {
  const shopper = new Shopper(ctx, site.websiteId);
  for (const [variantId, quantity] of lines) seeOther(await shopper.add(variantId, quantity));
  return { shopper, res: await shopper.checkout(fields) };
}

const orderIdOf = (location: string) => /\/checkout\/orders\/([0-9a-f]{24})$/.exec(location)![1]!;

describe('gift card codes', () => {
  test('SC-4 gift card codes: 16 characters of an alphabet without look-alikes, in groups of four, all different', () => {
    assert.equal(CODE_ALPHABET.length, 32);
    assert.doesNotMatch(CODE_ALPHABET, /[01OI]/);
    const codes = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = newGiftCardCode();
      assert.match(code, /^[2-9A-HJ-NP-Z]{4}(-[2-9A-HJ-NP-Z]{4}){3}$/);
      codes.add(code);
    }
    assert.equal(codes.size, 2000);
    const code = newGiftCardCode();
    assert.equal(normalizeCode(` ${code.toLowerCase().replace(/-/g, ' ')} `), code.replace(/-/g, ''));
    assert.equal(normalizeCode('0000-1111-OOOO-IIII'), undefined);
  });
});

describe('buying gift cards', () => {
  test('SC-5 two cards of 25.00: a GIFT_CARD line, a signed order.create, the codes on the confirmation and in the sealed e-mail, none in the database', async () => {
    const connected = await connectApp(ctx, ['website.orders', 'website.transactions.read']);
    const site = connected.site;
    const sub = await connected.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: receiver.url,
      topics: ['order.create'],
    });
    assert.equal(sub.statusCode, 201, sub.body);
    const { of25, productId } = await giftCardProduct(site);

    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(of25, 2));
    const form = await shopper.get(`${shopper.root}/checkout`);
    assert.match(text(form), /Subtotal \$50\.00 Total \$50\.00/, 'a gift card is not shipped');
    assert.match(form.body, /<legend>Billing address<\/legend>/);
    const arriving = next();
    const confirmation = seeOther(await shopper.checkout());
    const orderId = orderIdOf(confirmation);
    const page = text(await shopper.get(confirmation));
    const codes = page.match(CODE) ?? [];
    assert.equal(codes.length, 2, page);
    assert.notEqual(codes[0], codes[1]);
    assert.match(page, /Your gift cards/);
    assert.match(page, /Nothing in this order is shipped\./);

    const order = await apiOrder(site, orderId);
    assert.equal(order.lineItems.length, 1);
    const [line] = order.lineItems;
    assert.deepEqual(Object.keys(line), [
      'id',
      'variantId',
      'sku',
      'weight',
      'width',
      'length',
      'height',
      'productId',
      'productName',
      'quantity',
      'unitPricePaid',
      'variantOptions',
      'customizations',
      'imageUrl',
      'lineItemType',
    ]);
    assert.equal(line.lineItemType, 'GIFT_CARD');
    assert.equal(line.variantId, of25);
    assert.equal(line.productId, productId);
    assert.equal(line.variantOptions, null);
    assert.deepEqual([line.weight, line.width, line.length, line.height], [0, 0, 0, 0]);
    assert.equal(line.quantity, 2);
    assert.deepEqual(line.unitPricePaid, usd('25.00'));
    assert.deepEqual(order.shippingLines, []);
    assert.equal(order.shippingAddress, null);
    assert.deepEqual(order.grandTotal, usd('50.00'));
    assert.equal(order.paymentState, 'PAID');

    const [received] = await arriving;
    assert.equal(received!.json.topic, 'order.create');
    assert.deepEqual(received!.json.data, { orderId });
    assertSigned(received!, (sub.json() as { secret: string }).secret);

    // Each card: its balance what was paid for it, its code's digest and last four only.
    for (const code of codes) {
      const card = await cardByLastFour(ctx, site.websiteId, code);
      assert.equal(card.amount_minor, 2500);
      assert.equal(card.balance_minor, 2500);
      assert.equal(card.state, 'ACTIVE');
      assert.equal(card.order_id, orderId);
      const chars = code.replace(/-/g, '');
      assert.deepEqual(card.code_digest, createHash('sha256').update(`emporium gift card:${chars}`).digest());
    }

    // The e-mail shows the codes through the test control (and the owner's page), yet is sealed.
    const emails = await ctx.app.inject({
      method: 'GET',
      url: `/_emporium/websites/${site.websiteId}/emails?kind=order_confirmation&orderId=${orderId}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(emails.statusCode, 200, emails.body);
    const [email] = emails.json().emails as { text: string; html: string }[];
    for (const code of codes) {
      assert.ok(email!.text.includes(code), email!.text);
      assert.ok(email!.html.includes(code));
    }
    const row = await ctx.db
      .selectFrom('emails')
      .select(['text', 'html', 'sealed'])
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    assert.ok(row.sealed && row.sealed.length > 0, 'the body is sealed');
    assert.match(row.text, /kept encrypted/);

    // The database never holds a code, with or without its hyphens, in any case.
    const stored = (await everythingStored()).toUpperCase();
    for (const code of codes) {
      assert.ok(!stored.includes(code), `${code} is stored`);
      assert.ok(!stored.includes(code.replace(/-/g, '')), `${code} is stored without hyphens`);
    }
  });

  test('the confirmation seen again shows the codes to the browser that bought them only', async () => {
    const site = await ctx.site();
    const { of50 } = await giftCardProduct(site);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(of50, 1));
    const confirmation = seeOther(await shopper.checkout());
    const first = text(await shopper.get(confirmation)).match(CODE);
    const again = text(await shopper.get(confirmation)).match(CODE);
    assert.deepEqual(again, first);
    // Another browser holding a copied receipt cookie but not the codes' cookie sees none.
    const other = new Shopper(ctx, site.websiteId);
    other.cookies.set('emporium_receipt', shopper.cookies.get('emporium_receipt')!);
    const page = text(await other.get(confirmation));
    assert.equal(page.match(CODE), null);
    assert.match(page, /codes of your gift cards are in your confirmation e-mail/);
  });
});

describe('paying with a gift card', () => {
  test('partly: the gift card pays its 25.00 first, the card the 20.00 left; two payments, exact to the cent', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const { codes } = await buyGiftCards(ctx, site, of25);
    const { medium } = await shirt(site, 3);
    // Two shirts at 20.00 and 5.00 shipping: 45.00.
    const { shopper, res } = await checkoutWith(site, [[medium, 2]], {
      giftCardCode: codes[0]!.toLowerCase(),
    });
    const location = seeOther(res);
    const orderId = orderIdOf(location);
    assert.match(
      text(await shopper.get(location)),
      new RegExp(`Gift card ····${codes[0]!.slice(-4)} paid \\$25\\.00, the card \\$20\\.00\\.`),
    );
    const card = await cardByLastFour(ctx, site.websiteId, codes[0]!);
    assert.equal(card.balance_minor, 0);

    const document = await documentOf(site, orderId);
    assert.equal(document.payments.length, 2);
    const [gift, paid] = document.payments;
    assert.deepEqual(gift.amount, usd('25.00'));
    assert.deepEqual(gift.netAmount, usd('25.00'));
    assert.equal(gift.giftCardId, card.id);
    assert.equal(gift.provider, 'SQUARESPACE');
    assert.equal(gift.creditCardType, null);
    assert.deepEqual(gift.processingFees, []);
    assert.match(gift.externalTransactionId, /^gc_test_[0-9a-f]{24}$/);
    assert.deepEqual(paid.amount, usd('20.00'));
    assert.equal(paid.giftCardId, null);
    assert.equal(paid.provider, 'STRIPE');
    assert.equal(paid.creditCardType, 'VISA');
    // Stripe's fee on the 20.00 charged: 2.9% + 0.30 = 0.88.
    assert.deepEqual(paid.processingFees[0].amount, usd('0.88'));
    assert.deepEqual(paid.netAmount, usd('19.12'));
    assert.deepEqual(document.total, usd('45.00'));
    assert.deepEqual(document.totalNetPayment, usd('44.12'));

    const history = await ctx.db
      .selectFrom('gift_card_events')
      .select(['kind', 'amount_minor', 'balance_minor', 'order_id'])
      .where('gift_card_id', '=', card.id)
      .orderBy('happened_on')
      .execute();
    assert.deepEqual(
      history.map((e) => [e.kind, e.amount_minor, e.balance_minor]),
      [
        ['ISSUED', 2500, 2500],
        ['REDEEMED', 2500, 0],
      ],
    );
    assert.equal(history[1]!.order_id, orderId);
  });

  test('fully, with no card: one payment of the gift card, and its balance left for next time', async () => {
    const site = await ctx.site();
    const { of50 } = await giftCardProduct(site);
    const { codes } = await buyGiftCards(ctx, site, of50);
    const { medium } = await shirt(site, 3);
    const { shopper, res } = await checkoutWith(site, [[medium, 1]], { giftCardCode: codes[0]!, ...NO_CARD });
    const location = seeOther(res);
    const orderId = orderIdOf(location);
    assert.match(
      text(await shopper.get(location)),
      new RegExp(`Gift card ····${codes[0]!.slice(-4)} paid \\$25\\.00\\.`),
    );
    const document = await documentOf(site, orderId);
    assert.equal(document.payments.length, 1);
    assert.deepEqual(document.payments[0].amount, usd('25.00'));
    assert.ok(document.payments[0].giftCardId);
    assert.deepEqual(document.totalNetPayment, usd('25.00'));
    assert.equal((await cardByLastFour(ctx, site.websiteId, codes[0]!)).balance_minor, 2500);
    assert.equal((await apiOrder(site, orderId)).paymentState, 'PAID');
  });

  test('a balance short of the total and no card: refused, nothing charged, nothing changed', async () => {
    const site = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const { codes } = await buyGiftCards(ctx, site, of25);
    const { medium } = await shirt(site, 3);
    const orders = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('website_id', '=', site.websiteId)
      .execute();
    const { res } = await checkoutWith(site, [[medium, 2]], { giftCardCode: codes[0]!, ...NO_CARD });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(text(res), /This gift card's balance is \$25\.00: enter a card to pay the other \$20\.00\./);
    assert.match(text(res), /Nothing was charged/);
    const after = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.equal(after.length, orders.length);
    assert.equal((await cardByLastFour(ctx, site.websiteId, codes[0]!)).balance_minor, 2500);
  });

  test("refused with a clear message and nothing changed: unknown, another site's (the same words), disabled, spent", async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const { of25 } = await giftCardProduct(site);
    const { of25: theirs } = await giftCardProduct(other);
    const { medium } = await shirt(site, 5);
    const [ownCode] = (await buyGiftCards(ctx, site, of25)).codes;
    const [otherCode] = (await buyGiftCards(ctx, other, theirs)).codes;
    const [disabledCode] = (await buyGiftCards(ctx, site, of25)).codes;
    const disabled = await cardByLastFour(ctx, site.websiteId, disabledCode!);
    await ctx.db
      .updateTable('gift_cards')
      .set({ state: 'DISABLED', balance_minor: 0 })
      .where('id', '=', disabled.id)
      .execute();
    // Spend the first card in full (a 25.00 cart), then try it again.
    seeOther((await checkoutWith(site, [[of25, 1]], { giftCardCode: ownCode!, ...NO_CARD })).res);

    const count = async () =>
      (await ctx.db.selectFrom('orders').select('id').where('website_id', '=', site.websiteId).execute())
        .length;
    const before = await count();
    const cases: [string, RegExp][] = [
      ['ZZZZ-ZZZZ-ZZZZ-ZZZZ', /No gift card has this code\. Check the code and try again\./],
      ['not a code', /No gift card has this code\. Check the code and try again\./],
      [otherCode!, /No gift card has this code\. Check the code and try again\./],
      [disabledCode!, /This gift card has been disabled and cannot be used\./],
      [ownCode!, /This gift card has no balance left\./],
    ];
    for (const [code, message] of cases) {
      const { res } = await checkoutWith(site, [[medium, 1]], { giftCardCode: code });
      assert.equal(res.statusCode, 400, `${code}: ${res.body.slice(0, 200)}`);
      assert.match(text(res), message, code);
      assert.match(res.body, /id="f-giftCardCode-error"/);
      assert.match(text(res), /Nothing was charged/);
    }
    assert.equal(await count(), before, 'no order was placed');
    const theirCard = await cardByLastFour(ctx, other.websiteId, otherCode!);
    assert.equal(theirCard.balance_minor, 2500, "the other site's card is untouched");
  });
});
