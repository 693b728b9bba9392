import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  addLine,
  cartKey,
  decodeCart,
  encodeCart,
  parseQuantity,
  removeLine,
  setQuantity,
} from '../src/storefront/cart.ts';
import { encodeReceipt, holdsReceipt, receiptKey } from '../src/storefront/checkout-receipt.ts';
import { brandOf, chargeTestCard, luhnValid } from '../src/storefront/test-cards.ts';

/** The cart cookie's codec, the receipt cookie and the payment test mode, without a server. */

const key = cartKey(randomBytes(32));
const SITE = 'a'.repeat(24);

describe('the cart cookie', () => {
  test('round-trips its lines, and reads as empty when tampered with, malformed or of another store', () => {
    const a = randomUUID();
    const b = randomUUID();
    const cart = [
      { variantId: a, productId: null, quantity: 2 },
      { variantId: b, productId: null, quantity: 99 },
    ];
    const cookie = encodeCart(key, SITE, cart);
    assert.deepEqual(decodeCart(key, SITE, cookie), cart);

    assert.deepEqual(decodeCart(key, SITE, cookie.replace('*2', '*9')), [], 'a changed quantity');
    assert.deepEqual(decodeCart(key, 'b'.repeat(24), cookie), [], "another store's cart");
    assert.deepEqual(decodeCart(cartKey(randomBytes(32)), SITE, cookie), [], 'another server key');
    for (const bad of ['', '~', 'garbage', `${a}*1~${'x'.repeat(43)}`, `${cookie}~`, '\u0000~\u0000']) {
      assert.deepEqual(decodeCart(key, SITE, bad), [], JSON.stringify(bad));
    }
    // Well signed but out of bounds: still no cart (a key leak cannot make a 0 or 100 line).
    for (const lines of [`${a}*0`, `${a}*100`, `${a}*1.${a}*2`, `${a.toUpperCase()}*1`]) {
      const signed = `${lines}~${createHmac('sha256', key).update(`${SITE}\n${lines}`).digest('base64url')}`;
      assert.deepEqual(decodeCart(key, SITE, signed), [], lines);
    }
  });

  test('adding, changing and removing lines keep the limits: 1 to 99 of a line, 50 lines', () => {
    const a = randomUUID();
    let cart = addLine([], a, 3);
    cart = addLine(cart, a, 4);
    assert.deepEqual(
      cart,
      [{ variantId: a, productId: null, quantity: 7 }],
      'the same variant adds to its line',
    );
    assert.throws(() => addLine(cart, a, 93), /at most 99/);
    assert.deepEqual(setQuantity(cart, a, 2), [{ variantId: a, productId: null, quantity: 2 }]);
    assert.deepEqual(removeLine(cart, a), []);
    const full = Array.from({ length: 50 }, () => ({
      variantId: randomUUID(),
      productId: null,
      quantity: 1,
    }));
    assert.throws(() => addLine(full, randomUUID(), 1), /at most 50 different items/);
    assert.deepEqual(decodeCart(key, SITE, encodeCart(key, SITE, full)), full, '50 lines fit in a cookie');
    assert.ok(
      encodeCart(
        key,
        SITE,
        full.map((l) => ({ ...l, quantity: 99 })),
      ).length < 4000,
    );

    assert.equal(parseQuantity(' 12 '), 12);
    for (const bad of ['0', '100', '-1', '1.5', 'two', '', '1e2']) {
      assert.throws(() => parseQuantity(bad), /quantity from 1 to 99/, bad);
    }
  });
});

describe('the receipt cookie', () => {
  test('opens the confirmation of its own order in its own store only', () => {
    const secret = randomBytes(32);
    const rkey = receiptKey(secret);
    const order = 'c'.repeat(24);
    const cookie = encodeReceipt(rkey, SITE, order);
    assert.ok(holdsReceipt(rkey, SITE, order, cookie));
    assert.ok(!holdsReceipt(rkey, SITE, 'd'.repeat(24), cookie), 'another order');
    assert.ok(!holdsReceipt(rkey, 'b'.repeat(24), order, cookie), 'another store');
    assert.ok(!holdsReceipt(receiptKey(randomBytes(32)), SITE, order, cookie), 'another server key');
    assert.ok(!holdsReceipt(cartKey(secret), SITE, order, cookie), 'the cart key of the same secret');
    for (const bad of [undefined, '', order, `${order}~`, `${cookie}~x`, cookie.slice(0, -1)]) {
      assert.ok(!holdsReceipt(rkey, SITE, order, bad), String(bad));
    }
  });
});

describe('payment test mode', () => {
  const NOW = new Date('2026-05-04T10:00:00Z');
  const card = (number: string, expiry = '12/30', cvc = '123') =>
    chargeTestCard({ number, expiry, cvc }, NOW);

  test('4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; other numbers are refused', () => {
    assert.deepEqual(card('4242 4242 4242 4242'), { paid: true, brand: 'VISA', last4: '4242' });
    assert.deepEqual(card('4242-4242-4242-4242', '5/2026', '1234'), {
      paid: true,
      brand: 'VISA',
      last4: '4242',
    });
    assert.deepEqual(card('4000 0000 0000 0002'), {
      paid: false,
      errors: { cardNumber: 'Your card was declined.' },
    });
    assert.deepEqual(card('4242 4242 4242 4241'), {
      paid: false,
      errors: { cardNumber: 'Your card number is incorrect.' },
    });
    const unknown = card('5555 5555 5555 4444');
    assert.equal(unknown.paid, false);
    assert.match(!unknown.paid ? unknown.errors.cardNumber! : '', /declined.*test cards/);
  });

  test('the expiry must be this month or later, the CVC 3 or 4 digits, every error at once', () => {
    assert.deepEqual(card('4242424242424242', '04/26', '12'), {
      paid: false,
      errors: {
        cardExpiry: 'Your card’s expiration date is in the past.',
        cardCvc: 'Your card’s security code is invalid.',
      },
    });
    assert.deepEqual(card('', '', ''), {
      paid: false,
      errors: {
        cardNumber: 'Enter your card number.',
        cardExpiry: 'Enter the expiry date.',
        cardCvc: 'Enter the CVC.',
      },
    });
    assert.equal(card('4242424242424242', '13/30').paid, false);
    assert.equal(card('4242424242424242', '2030-12').paid, false);
    assert.equal(card('4242424242424242', '05/26').paid, true, 'good through the end of its month');
  });

  test('the Luhn check and the brand from the first digits', () => {
    assert.ok(luhnValid('4242424242424242'));
    assert.ok(!luhnValid('4242424242424243'));
    assert.equal(brandOf('5555555555554444'), 'MASTERCARD');
    assert.equal(brandOf('2223003122003222'), 'MASTERCARD');
    assert.equal(brandOf('378282246310005'), 'AMEX');
    assert.equal(brandOf('6011111111111117'), 'DISCOVER');
    assert.equal(brandOf('3566002020360505'), 'JCB');
    assert.equal(brandOf('9999999999999995'), 'OTHER');
  });
});
