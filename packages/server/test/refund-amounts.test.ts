import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fullRefund, refundAmounts, remainingOf, type Refundable } from '../src/orders/refund-amounts.ts';

/** The refund arithmetic: exact to the minor unit, never more than was paid. */

const describeUsd = (minor: number) => `${(minor / 100).toFixed(2)} USD`;

/**
 * Three mugs sold at 10.00 with 1.00 off the line and 7% tax on 29.00 (2.03): the line's total is
 * 31.03, which does not split into thirds; a 0.99 scarf; 4.50 shipping. Paid: 36.52.
 */
function order(earlier: Refundable['earlier'] = []): Refundable {
  return {
    currency: 'USD',
    paidMinor: 3103 + 99 + 450,
    shippingMinor: 450,
    lines: [
      { id: 'mugs', productName: 'Mug', quantity: 3, totalMinor: 3103 },
      { id: 'scarf', productName: 'Scarf', quantity: 1, totalMinor: 99 },
    ],
    earlier,
  };
}

const none = { lines: [], shipping: false, otherMinor: 0 };

describe('refund amounts', () => {
  test("a discounted, taxed line refunded one item at a time adds up to the line's total, to the cent", () => {
    let state = order();
    const amounts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const refund = refundAmounts(state, { ...none, lines: [{ lineId: 'mugs', quantity: 1 }] }, describeUsd);
      amounts.push(refund.amountMinor);
      state = order([...state.earlier, { ...refund }]);
    }
    assert.deepEqual(amounts, [1034, 1034, 1035]);
    assert.equal(
      amounts.reduce((a, b) => a + b, 0),
      3103,
    );
    // Two then one gives the same cents as one, one, one.
    const two = refundAmounts(order(), { ...none, lines: [{ lineId: 'mugs', quantity: 2 }] }, describeUsd);
    assert.equal(two.amountMinor, 2068);
  });

  test('items, shipping and another amount add up; the whole order comes to what was paid', () => {
    const all = refundAmounts(
      order(),
      {
        lines: [
          { lineId: 'mugs', quantity: 3 },
          { lineId: 'scarf', quantity: 1 },
        ],
        shipping: true,
        otherMinor: 0,
      },
      describeUsd,
    );
    assert.equal(all.amountMinor, 3652);
    assert.equal(all.shippingMinor, 450);
    assert.deepEqual(all.lines, [
      { lineId: 'mugs', quantity: 3, amountMinor: 3103 },
      { lineId: 'scarf', quantity: 1, amountMinor: 99 },
    ]);
    const some = refundAmounts(order(), { ...none, shipping: true, otherMinor: 125 }, describeUsd);
    assert.equal(some.amountMinor, 575);
  });

  test('refused: more items than are left, shipping twice, nothing at all, more money than is left', () => {
    const after = order([
      {
        amountMinor: 1034 + 450,
        shippingMinor: 450,
        lines: [{ lineId: 'mugs', quantity: 1, amountMinor: 1034 }],
      },
    ]);
    assert.throws(
      () => refundAmounts(after, { ...none, lines: [{ lineId: 'mugs', quantity: 3 }] }, describeUsd),
      /Mug: 2 of its 3 items can be refunded, not 3/,
    );
    assert.throws(
      () => refundAmounts(after, { ...none, shipping: true }, describeUsd),
      /nothing of the shipping is left/,
    );
    assert.throws(() => refundAmounts(after, none, describeUsd), /Nothing to refund/);
    assert.throws(
      () => refundAmounts(after, { ...none, otherMinor: 2169 }, describeUsd),
      (error: Error & { subtype?: string }) =>
        /A refund of 21.69 USD is more than what is left to refund, 21.68 USD/.test(error.message) &&
        error.subtype === 'REFUND_EXCEEDS_PAYMENT',
    );
    assert.throws(
      () => refundAmounts(after, { ...none, lines: [{ lineId: 'nope', quantity: 1 }] }, describeUsd),
      /no line nope/,
    );
  });

  test('everything left: the remaining items and shipping, and exactly the money left', () => {
    const earlier = [
      { amountMinor: 500, shippingMinor: 0, lines: [] },
      { amountMinor: 1034, shippingMinor: 0, lines: [{ lineId: 'mugs', quantity: 1, amountMinor: 1034 }] },
    ];
    const rest = fullRefund(order(earlier), describeUsd);
    assert.equal(rest.amountMinor, 3652 - 500 - 1034);
    assert.deepEqual(rest.lines, [
      { lineId: 'mugs', quantity: 2, amountMinor: 2069 },
      { lineId: 'scarf', quantity: 1, amountMinor: 99 },
    ]);
    assert.equal(rest.shippingMinor, 450);
    const done = order([...earlier, rest]);
    assert.equal(remainingOf(done).amountMinor, 0);
    assert.throws(() => fullRefund(done, describeUsd), /Nothing is left to refund/);
  });
});
