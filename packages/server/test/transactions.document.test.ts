import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PlacedOrder } from '../src/shared/order-model.ts';
import { allocate, taxRate, transactionDocument } from '../src/transactions/transaction-document.ts';
import { address, countingIds, line, order } from './helpers/transactions.ts';

/**
 * Transaction documents (platform-surface 2.2): the builder's sums, from an order to the document.
 * No database: the reads are in transactions.read.test.ts.
 */

/** Minor units of a USD amount, exactly. */
const cents = (money: { currency: string; value: string }) => {
  assert.equal(money.currency, 'USD');
  assert.match(money.value, /^-?\d+\.\d{2}$/);
  return Number(money.value.replace('.', ''));
};
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('the document of an order (transactionDocument)', () => {
  test('allocate splits in proportion, rounding down, the remainder on the last share, summing exactly', () => {
    assert.deepEqual(allocate(100, [1000, 999, 7]), [49, 49, 2]);
    assert.deepEqual(allocate(10, [1, 1, 1]), [3, 3, 4]);
    assert.deepEqual(allocate(5, [0, 0]), [0, 5], 'no weight at all: the last share takes everything');
    assert.deepEqual(allocate(7, []), []);
    assert.deepEqual(allocate(99_999_999, [99_999_999_000_000, 1]), [99_999_998, 1], 'no float overflow');
  });

  test('taxRate is a percent with two decimals, rounded half up', () => {
    assert.equal(taxRate(123, 1906), '6.45');
    assert.equal(taxRate(7, 100), '7.00');
    assert.equal(taxRate(1, 8), '12.50');
    assert.equal(taxRate(5, 0), '0.00');
  });

  test('fields in the wire order of 2.2.3, money as strings in the order currency', () => {
    const doc = transactionDocument(order('w'), countingIds());
    assert.deepEqual(Object.keys(doc), [
      'customerEmail',
      'salesOrderId',
      'voided',
      'totalSales',
      'totalNetSales',
      'totalNetShipping',
      'totalTaxes',
      'total',
      'totalNetPayment',
      'payments',
      'salesLineItems',
      'discounts',
      'shippingLineItems',
      'paymentGatewayError',
    ]);
    assert.deepEqual(Object.keys(doc.salesLineItems[0]!), [
      'id',
      'discountAmount',
      'totalSales',
      'totalNetSales',
      'total',
      'taxes',
    ]);
    assert.deepEqual(Object.keys(doc.shippingLineItems[0]!), [
      'id',
      'description',
      'amount',
      'discountAmount',
      'netAmount',
      'taxes',
    ]);
    assert.deepEqual(doc.totalSales, { currency: 'USD', value: '30.00' });
    assert.equal(doc.voided, false);
    assert.equal(doc.paymentGatewayError, null);
    assert.deepEqual(doc.shippingLineItems[0]!.description, 'USPS Flat Rate');
    assert.deepEqual(doc.salesLineItems[0]!.taxes, [], 'no tax, no Tax entry');
    const yen = transactionDocument(
      order('w', { currency: 'JPY', lineItems: [line(1500, 1)], subtotalMinor: 1500, grandTotalMinor: 2000 }),
      countingIds(),
    );
    assert.deepEqual(yen.total, { currency: 'JPY', value: '2000' });
  });

  test('discounts and taxes that do not divide evenly: the lines add up to the totals to the cent (EXCLUSIVE)', () => {
    const o = order('w', {
      lineItems: [line(1000, 1), line(333, 3), line(7, 1)],
      subtotalMinor: 2006,
      discountLines: [
        { name: 'Spring', promoCode: 'SPRING', amountMinor: 60 },
        { name: 'Loyalty', promoCode: null, amountMinor: 40 },
      ],
      discountTotalMinor: 100,
      taxTotalMinor: 123,
      grandTotalMinor: 2006 - 100 + 123 + 500,
    });
    const doc = transactionDocument(o, countingIds());
    const lines = doc.salesLineItems;
    assert.deepEqual(
      lines.map((l) => cents(l.totalSales)),
      [1000, 999, 7],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.discountAmount)),
      [49, 49, 2],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.totalNetSales)),
      [951, 950, 5],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.taxes[0]!.amount)),
      [61, 61, 1],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.total)),
      [1012, 1011, 6],
      'net sales plus tax',
    );
    assert.equal(
      sum(lines.map((l) => cents(l.discountAmount))),
      cents(doc.totalSales) - cents(doc.totalNetSales),
    );
    assert.equal(sum(lines.map((l) => cents(l.totalNetSales))), cents(doc.totalNetSales));
    assert.equal(sum(lines.map((l) => cents(l.taxes[0]!.amount))), cents(doc.totalTaxes));
    assert.equal(
      sum(lines.map((l) => cents(l.total))) + cents(doc.totalNetShipping),
      cents(doc.total),
      'the lines and the shipping make the grand total',
    );
    assert.deepEqual(
      [doc.totalSales, doc.totalNetSales, doc.totalNetShipping, doc.totalTaxes, doc.total].map(cents),
      [2006, 1906, 500, 123, 2529],
    );
    assert.deepEqual(lines[0]!.taxes[0], {
      amount: { currency: 'USD', value: '0.61' },
      rate: '6.45',
      name: 'Sales tax',
      jurisdiction: 'COUNTRY:US,STATE:NY',
    });
    assert.deepEqual(doc.discounts, [
      { description: 'Spring', name: 'Spring', amount: { currency: 'USD', value: '0.60' } },
      { description: 'Loyalty', name: 'Loyalty', amount: { currency: 'USD', value: '0.40' } },
    ]);
  });

  test('INCLUSIVE prices hold the tax: line totals are their net sales, the rate is over the net without tax', () => {
    const o = order('w', {
      priceTaxInterpretation: 'INCLUSIVE',
      lineItems: [line(1100, 1), line(550, 1), line(101, 1)],
      subtotalMinor: 1751,
      discountTotalMinor: 51,
      discountLines: [{ name: 'Promo', promoCode: 'P', amountMinor: 51 }],
      taxTotalMinor: 155,
      grandTotalMinor: 1751 - 51 + 500,
    });
    const doc = transactionDocument(o, countingIds());
    const lines = doc.salesLineItems;
    assert.equal(sum(lines.map((l) => cents(l.discountAmount))), 51);
    assert.equal(sum(lines.map((l) => cents(l.taxes[0]!.amount))), 155);
    assert.deepEqual(
      lines.map((l) => cents(l.total)),
      lines.map((l) => cents(l.totalNetSales)),
    );
    assert.equal(cents(doc.totalNetSales), 1700);
    assert.equal(cents(doc.totalNetSales) + cents(doc.totalNetShipping), cents(doc.total));
    assert.equal(lines[0]!.taxes[0]!.rate, taxRate(155, 1700 - 155));
    assert.equal(lines[0]!.taxes[0]!.rate, '10.03');
  });

  test('the jurisdiction comes from the shipping address, else the billing one; null without a country', () => {
    const rate = (overrides: Partial<PlacedOrder>) =>
      transactionDocument(order('w', { taxTotalMinor: 100, ...overrides }), countingIds()).salesLineItems[0]!
        .taxes[0]!.jurisdiction;
    assert.equal(rate({}), 'COUNTRY:US,STATE:NY');
    assert.equal(rate({ shippingAddress: address('us') }), 'COUNTRY:US');
    assert.equal(rate({ shippingAddress: null, billingAddress: address('CA', 'ON') }), 'COUNTRY:CA,STATE:ON');
    assert.equal(rate({ shippingAddress: null, billingAddress: null }), null);
  });

  test('a card payment: amount is the grand total, net of the fee, one processing fee in the site currency', () => {
    const doc = transactionDocument(order('w'), countingIds());
    assert.equal(doc.payments.length, 1);
    const [payment] = doc.payments;
    assert.deepEqual(Object.keys(payment!), [
      'id',
      'amount',
      'refundedAmount',
      'netAmount',
      'creditCardType',
      'provider',
      'refunds',
      'processingFees',
      'giftCardId',
      'paidOn',
      'externalTransactionId',
      'externalTransactionProperties',
      'externalCustomerId',
    ]);
    const { id: feeId, ...fee } = payment!.processingFees[0]!;
    assert.match(feeId, /^[A-Za-z0-9]{10}$/);
    assert.deepEqual(fee, {
      amount: { currency: 'USD', value: '1.32' },
      amountGatewayCurrency: { currency: 'USD', value: '1.32' },
      exchangeRate: 1,
      refundedAmount: { currency: 'USD', value: '0.00' },
      refundedAmountGatewayCurrency: { currency: 'USD', value: '0.00' },
      netAmount: { currency: 'USD', value: '1.32' },
      netAmountGatewayCurrency: { currency: 'USD', value: '1.32' },
      feeRefunds: [],
    });
    assert.deepEqual(
      { ...payment!, id: 'x', processingFees: [] },
      {
        id: 'x',
        amount: { currency: 'USD', value: '35.00' },
        refundedAmount: { currency: 'USD', value: '0.00' },
        netAmount: { currency: 'USD', value: '33.68' },
        creditCardType: 'VISA',
        provider: 'STRIPE',
        refunds: [],
        processingFees: [],
        giftCardId: null,
        paidOn: '2025-12-01T10:00:00.000Z',
        externalTransactionId: 'ch_1FFCJCLMG4qggZ0BzchTZjwR',
        externalTransactionProperties: [],
        externalCustomerId: null,
      },
    );
    assert.deepEqual(doc.totalNetPayment, { currency: 'USD', value: '33.68' });
    const free = transactionDocument(
      order('w', { payment: { ...order('w').payment!, processingFeeMinor: 0 } }),
      countingIds(),
    );
    assert.deepEqual(free.payments[0]!.processingFees, [], 'no fee, no ProcessingFee');
    assert.deepEqual(free.totalNetPayment, { currency: 'USD', value: '35.00' });
  });

  test('a net below zero (a discount above the subtotal) is a signed amount, not a broken string', () => {
    const doc = transactionDocument(
      order('w', { subtotalMinor: 3000, discountTotalMinor: 3205, grandTotalMinor: 295 }),
      countingIds(),
    );
    assert.deepEqual(doc.totalNetSales, { currency: 'USD', value: '-2.05' });
    assert.deepEqual(doc.salesLineItems[0]!.totalNetSales, { currency: 'USD', value: '-2.05' });
  });

  test('an import (paid on another channel) has no payment and a zero net payment', () => {
    const doc = transactionDocument(order('w', { channel: 'external', payment: null }), countingIds());
    assert.deepEqual(doc.payments, []);
    assert.deepEqual(doc.totalNetPayment, { currency: 'USD', value: '0.00' });
    assert.deepEqual(doc.total, { currency: 'USD', value: '35.00' });
  });
});
