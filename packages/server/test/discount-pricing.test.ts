/**
 * The discount arithmetic (discounts/discount-pricing.ts): examples of every type, then random
 * carts and discounts compared with a reference model that tries every way of counting the
 * units (small carts only), so the clever parts (buy X get Y's cheapest units, rounding, the
 * choice of one discount) are checked against the obvious.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { DiscountRule, Template, Criteria } from '../src/shared/discount-model.ts';
import {
  allocate,
  percentOf,
  priceCart,
  savingOf,
  type CartLine,
  type CartShipping,
  type LiveDiscount,
} from '../src/discounts/discount-pricing.ts';

const STD = 'std-option';
const line = (productId: string, unitPriceMinor: number, quantity = 1): CartLine => ({
  productId,
  variantId: `${productId}-v`,
  unitPriceMinor,
  quantity,
});
const shipping = (amountMinor: number, optionId = STD): CartShipping => ({
  optionId,
  optionType: 'SHIPPING',
  service: null,
  amountMinor,
});
let n = 0;
const rule = (criteria: Criteria, template: Template, promoCode?: string): DiscountRule => ({
  id: `d${++n}`,
  name: `Discount ${n}`,
  criteria,
  template,
  trigger: promoCode ? { type: 'CODE', promoCode } : { type: 'AUTO' },
});
const live = (r: DiscountRule, usable = true): LiveDiscount => ({ rule: r, usable });
const ANY = { type: 'ANY_ORDER' } as const;
const pct = (hundredths: number) => ({ type: 'PERCENTAGE', percentageHundredths: hundredths }) as const;
const fixed = (minor: number) => ({ type: 'FIXED_AMOUNT', discountAmountMinor: minor }) as const;
const FREE = {
  type: 'FREE_SHIPPING',
  appliesToFulfillmentOptionType: 'SHIPPING',
  selectedShippingOption: null,
} as const;

describe('examples', () => {
  test('ANY_ORDER 10 % of a cart with a sale price: taken of the prices charged, rounded half up once', () => {
    // A 10.00 product on sale at 8.25 (the caller passes 825) twice, and 3.30: 19.80 → 1.98.
    const cart = priceCart({
      currency: 'USD',
      lines: [line('a', 825, 2), line('b', 330)],
      shipping: shipping(500),
      discounts: [live(rule(ANY, pct(1000)))],
      promoCode: null,
    });
    assert.equal(cart.subtotalMinor, 1980);
    assert.equal(cart.merchandiseDiscountMinor, 198);
    assert.deepEqual(cart.lineDiscountsMinor, [165, 33]);
    assert.equal(cart.totalMinor, 1980 + 500 - 198);
    assert.equal(cart.discountLines.length, 1);
    assert.equal(cart.discountLines[0]!.promoCode, null);
  });

  test('a percentage rounds half up: 12.5 % of 1.00 is 0.13, of 0.99 is 0.12', () => {
    assert.equal(percentOf(100, 1250), 13);
    assert.equal(percentOf(99, 1250), 12);
    assert.equal(percentOf(4, 1250), 1, '0.5 of a cent goes up');
  });

  test('FIXED_AMOUNT on the order is capped at the merchandise: never a negative total', () => {
    const cart = priceCart({
      currency: 'USD',
      lines: [line('a', 300)],
      shipping: shipping(500),
      discounts: [live(rule(ANY, fixed(2000), 'BIG'))],
      promoCode: 'big',
    });
    assert.equal(cart.merchandiseDiscountMinor, 300);
    assert.equal(cart.totalMinor, 500, 'the shipping is still charged');
    assert.deepEqual(cart.promoCode, { code: 'big', outcome: 'APPLIED' });
    assert.equal(cart.discountLines[0]!.promoCode, 'BIG', 'the code as the discount spells it');
  });

  test('CART_TOTAL applies from its minimum, inclusive', () => {
    const d = rule({ type: 'CART_TOTAL', minimumCartTotalMinor: 5000 }, fixed(500));
    const below = priceCart({
      currency: 'USD',
      lines: [line('a', 4999)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    const at = priceCart({
      currency: 'USD',
      lines: [line('a', 5000)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    assert.equal(below.discountTotalMinor, 0);
    assert.equal(at.discountTotalMinor, 500);
  });

  test('PRODUCT FIXED_AMOUNT comes off each unit of the product, never below its price', () => {
    const d = rule({ type: 'PRODUCT', productId: 'a', productName: 'A' }, fixed(300));
    const cart = priceCart({
      currency: 'USD',
      lines: [line('a', 1000, 2), line('b', 1000), line('a', 200)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    assert.deepEqual(cart.lineDiscountsMinor, [600, 0, 200]);
  });

  test('PRODUCT PERCENTAGE: of the product lines only', () => {
    const d = rule({ type: 'PRODUCT', productId: 'b', productName: 'B' }, pct(5000));
    const cart = priceCart({
      currency: 'USD',
      lines: [line('a', 1000), line('b', 333, 3)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    assert.equal(cart.merchandiseDiscountMinor, 500, 'half of 9.99 is 4.995, rounded half up');
    assert.deepEqual(cart.lineDiscountsMinor, [0, 500]);
  });

  test('BUY_X_GET_Y: buy 2 get 1 half price, the cheapest units rewarded, up to maxApplicationsPerCart', () => {
    const criteria: Criteria = {
      type: 'BUY_X_GET_Y',
      requiredFullPriceQuantity: 2,
      eligibleForDiscountQuantity: 1,
      criteriaProductIds: ['a', 'b'],
      rewardProductIds: ['a', 'b'],
    };
    const lines = [line('a', 1000, 3), line('b', 400, 3)];
    const unlimited = rule(criteria, {
      type: 'BUY_X_GET_Y_PERCENTAGE',
      discountPercentageHundredths: 5000,
      maxApplicationsPerCart: 0,
    });
    // Six units: two applications; the two rewarded are the two 4.00 units: 4.00 off.
    const cart = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(unlimited)],
      promoCode: null,
    });
    assert.equal(cart.merchandiseDiscountMinor, 400);
    assert.deepEqual(cart.lineDiscountsMinor, [0, 400]);
    const once = rule(criteria, {
      type: 'BUY_X_GET_Y_FIXED_AMOUNT',
      discountAmountMinor: 1000,
      maxApplicationsPerCart: 1,
    });
    const capped = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(once)],
      promoCode: null,
    });
    assert.equal(capped.merchandiseDiscountMinor, 400, 'one unit rewarded, a fixed 10.00 capped at its 4.00');
  });

  test('BUY_X_GET_Y needs the full-price units first: one unit alone gets nothing', () => {
    const d = rule(
      {
        type: 'BUY_X_GET_Y',
        requiredFullPriceQuantity: 1,
        eligibleForDiscountQuantity: 1,
        criteriaProductIds: ['a'],
        rewardProductIds: ['b'],
      },
      { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentageHundredths: 10000, maxApplicationsPerCart: 0 },
    );
    const alone = priceCart({
      currency: 'USD',
      lines: [line('b', 700)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    const both = priceCart({
      currency: 'USD',
      lines: [line('a', 100), line('b', 700, 2)],
      shipping: null,
      discounts: [live(d)],
      promoCode: null,
    });
    assert.equal(alone.discountTotalMinor, 0);
    assert.equal(both.discountTotalMinor, 700, 'one a bought: one b free');
  });

  test('FREE_SHIPPING takes off the shipping charge, only on the option it names', () => {
    const any = rule(ANY, FREE, 'SHIPFREE');
    const cart = priceCart({
      currency: 'USD',
      lines: [line('a', 1000)],
      shipping: shipping(500),
      discounts: [live(any)],
      promoCode: 'SHIPFREE',
    });
    assert.equal(cart.shippingMinor, 500);
    assert.equal(cart.shippingDiscountMinor, 500);
    assert.equal(cart.merchandiseDiscountMinor, 0);
    assert.equal(cart.totalMinor, 1000);
    assert.equal(cart.discountLines[0]!.amountMinor, 500);
    const named = rule(ANY, {
      ...FREE,
      selectedShippingOption: {
        shippingOptionId: STD,
        shippingOptionName: 'Standard Shipping',
        isAllServicesSelected: true,
        selectedService: null,
      },
    });
    const other = priceCart({
      currency: 'USD',
      lines: [line('a', 1000)],
      shipping: shipping(500, 'other'),
      discounts: [live(named)],
      promoCode: null,
    });
    assert.equal(other.discountTotalMinor, 0);
    const none = priceCart({
      currency: 'USD',
      lines: [line('a', 1000)],
      shipping: null,
      discounts: [live(any)],
      promoCode: 'SHIPFREE',
    });
    assert.deepEqual(none.promoCode, { code: 'SHIPFREE', outcome: 'NOT_ELIGIBLE' });
  });

  test('one discount applies: the one that saves the most; the code says why it did not apply', () => {
    const auto = rule(ANY, pct(1000));
    const code = rule(ANY, fixed(150), 'FIFTEEN');
    const lines = [line('a', 2000)];
    const better = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(auto), live(code)],
      promoCode: 'fifteen',
    });
    assert.equal(better.discountLines[0]!.discountId, auto.id, '10 % of 20.00 beats 1.50');
    assert.deepEqual(better.promoCode, { code: 'fifteen', outcome: 'BETTER_DISCOUNT_APPLIED' });
    const tie = rule(ANY, fixed(200), 'TWO');
    const tied = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(auto), live(tie)],
      promoCode: 'TWO',
    });
    assert.equal(tied.discountLines[0]!.discountId, tie.id, 'on equal savings the code entered wins');
    const usedUp = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(tie, false)],
      promoCode: 'TWO',
    });
    assert.deepEqual([usedUp.discountTotalMinor, usedUp.promoCode?.outcome], [0, 'NOT_USABLE']);
    const unknown = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(code)],
      promoCode: 'NOPE',
    });
    assert.deepEqual([unknown.discountTotalMinor, unknown.promoCode?.outcome], [0, 'UNKNOWN']);
    const notEntered = priceCart({
      currency: 'USD',
      lines,
      shipping: null,
      discounts: [live(code)],
      promoCode: null,
    });
    assert.deepEqual(
      [notEntered.discountTotalMinor, notEntered.promoCode],
      [0, null],
      'a code discount needs its code',
    );
  });

  test('allocate: shares add up and none passes its weight', () => {
    assert.deepEqual(allocate(6, [3, 3, 1]), [3, 2, 1]);
    assert.deepEqual(allocate(0, [3, 3]), [0, 0]);
  });
});

/* The reference model: units one by one, every way of counting them tried. */

interface Unit {
  productId: string;
  price: number;
}

const units = (lines: CartLine[]): Unit[] =>
  lines.flatMap((l) =>
    Array.from({ length: l.quantity }, () => ({ productId: l.productId!, price: l.unitPriceMinor })),
  );

/** Half up with plain numbers: small carts keep every product under 2^53. */
const roundPercent = (amount: number, hundredths: number) => Math.floor((amount * hundredths + 5000) / 10000);

function modelBuyXGetY(c: Extract<Criteria, { type: 'BUY_X_GET_Y' }>, t: Template, all: Unit[]): number {
  const max = 'maxApplicationsPerCart' in t ? t.maxApplicationsPerCart : 0;
  const cost = (rewarded: Unit[]) =>
    t.type === 'BUY_X_GET_Y_PERCENTAGE'
      ? roundPercent(
          rewarded.reduce((s, u) => s + u.price, 0),
          t.discountPercentageHundredths,
        )
      : t.type === 'BUY_X_GET_Y_FIXED_AMOUNT'
        ? rewarded.reduce((s, u) => s + Math.min(t.discountAmountMinor, u.price), 0)
        : 0;
  let best = { n: 0, discount: 0 };
  const visit = (i: number, crit: number, rewarded: Unit[]) => {
    if (i === all.length) {
      const k = crit / c.requiredFullPriceQuantity;
      if (!Number.isInteger(k) || k * c.eligibleForDiscountQuantity !== rewarded.length) return;
      if (max > 0 && k > max) return;
      const discount = cost(rewarded);
      if (k > best.n || (k === best.n && discount < best.discount)) best = { n: k, discount };
      return;
    }
    const u = all[i]!;
    visit(i + 1, crit, rewarded);
    if (c.criteriaProductIds.includes(u.productId)) visit(i + 1, crit + 1, rewarded);
    if (c.rewardProductIds.includes(u.productId)) visit(i + 1, crit, [...rewarded, u]);
  };
  visit(0, 0, []);
  return best.discount;
}

function modelSaving(r: DiscountRule, lines: CartLine[], ship: CartShipping | null): number {
  const all = units(lines);
  const subtotal = all.reduce((s, u) => s + u.price, 0);
  const { criteria: c, template: t } = r;
  if (t.type === 'FREE_SHIPPING') {
    if (!ship) return 0;
    if (c.type === 'CART_TOTAL' && subtotal < c.minimumCartTotalMinor) return 0;
    const sel = t.selectedShippingOption;
    return sel && sel.shippingOptionId !== ship.optionId ? 0 : ship.amountMinor;
  }
  if (c.type === 'BUY_X_GET_Y') return modelBuyXGetY(c, t, all);
  if (c.type === 'CART_TOTAL' && subtotal < c.minimumCartTotalMinor) return 0;
  const eligible = c.type === 'PRODUCT' ? all.filter((u) => u.productId === c.productId) : all;
  const value = eligible.reduce((s, u) => s + u.price, 0);
  if (t.type === 'PERCENTAGE') return roundPercent(value, t.percentageHundredths);
  if (t.type !== 'FIXED_AMOUNT') return 0;
  if (c.type === 'PRODUCT') return eligible.reduce((s, u) => s + Math.min(t.discountAmountMinor, u.price), 0);
  return Math.min(t.discountAmountMinor, value);
}

const PRODUCTS = ['p1', 'p2', 'p3'];
const ids = fc.subarray(PRODUCTS, { minLength: 1 });
const arbCriteria: fc.Arbitrary<Criteria> = fc.oneof(
  fc.constant({ type: 'ANY_ORDER' as const }),
  fc.integer({ min: 0, max: 6000 }).map((m) => ({ type: 'CART_TOTAL' as const, minimumCartTotalMinor: m })),
  fc.constantFrom(...PRODUCTS).map((p) => ({ type: 'PRODUCT' as const, productId: p, productName: p })),
  fc.record({
    type: fc.constant('BUY_X_GET_Y' as const),
    requiredFullPriceQuantity: fc.integer({ min: 1, max: 3 }),
    eligibleForDiscountQuantity: fc.integer({ min: 1, max: 3 }),
    criteriaProductIds: ids,
    rewardProductIds: ids,
  }),
);
const amount = fc.integer({ min: 1, max: 3000 });
const hundredths = fc.integer({ min: 1, max: 10000 });
const apps = fc.integer({ min: 0, max: 2 });
function arbTemplate(c: Criteria): fc.Arbitrary<Template> {
  if (c.type === 'BUY_X_GET_Y') {
    return fc.oneof(
      fc.record({
        type: fc.constant('BUY_X_GET_Y_FIXED_AMOUNT' as const),
        discountAmountMinor: amount,
        maxApplicationsPerCart: apps,
      }),
      fc.record({
        type: fc.constant('BUY_X_GET_Y_PERCENTAGE' as const),
        discountPercentageHundredths: hundredths,
        maxApplicationsPerCart: apps,
      }),
    );
  }
  const money = [amount.map((a) => fixed(a) as Template), hundredths.map((h) => pct(h) as Template)];
  if (c.type === 'PRODUCT') return fc.oneof(...money);
  const free = fc.boolean().map((named): Template => ({
    ...FREE,
    selectedShippingOption: named
      ? {
          shippingOptionId: STD,
          shippingOptionName: 'Standard Shipping',
          isAllServicesSelected: true,
          selectedService: null,
        }
      : null,
  }));
  return fc.oneof(...money, free);
}
const arbDiscounts = fc
  .array(
    fc.tuple(
      arbCriteria.chain((c) => arbTemplate(c).map((t) => [c, t] as const)),
      fc.boolean(),
      fc.boolean(),
    ),
    { maxLength: 4 },
  )
  .map((list) =>
    list.map(([[c, t], code, usable], i) => live(rule(c, t, code ? `CODE${i}` : undefined), usable)),
  );
const arbLines = fc.array(
  fc.record({
    productId: fc.constantFrom(...PRODUCTS),
    variantId: fc.constant(null),
    unitPriceMinor: fc.integer({ min: 0, max: 5000 }),
    quantity: fc.integer({ min: 1, max: 2 }),
  }),
  { maxLength: 4 },
);
const arbShipping = fc.option(
  fc.record({
    optionId: fc.constantFrom(STD, 'other'),
    optionType: fc.constant('SHIPPING' as const),
    service: fc.constant(null),
    amountMinor: fc.integer({ min: 0, max: 1000 }),
  }),
);
const arbCode = fc.option(fc.constantFrom('CODE0', 'code1', 'CODE2', 'CODE3', 'other'));

describe('against the reference model', () => {
  test('the discount applied saves what the model says is the most, and the totals add up', () => {
    fc.assert(
      fc.property(arbLines, arbShipping, arbDiscounts, arbCode, (lines, ship, discounts, promoCode) => {
        const cart = priceCart({ currency: 'USD', lines, shipping: ship, discounts, promoCode });
        const entered = (d: LiveDiscount) =>
          d.rule.trigger.type === 'CODE' &&
          promoCode !== null &&
          d.rule.trigger.promoCode.toLowerCase() === promoCode.toLowerCase();
        const savings = discounts
          .filter((d) => d.usable && (d.rule.trigger.type === 'AUTO' || entered(d)))
          .map((d) => modelSaving(d.rule, lines, ship));
        const best = Math.max(0, ...savings);
        assert.equal(cart.discountTotalMinor, best);
        assert.equal(cart.discountLines.length, best > 0 ? 1 : 0);
        if (best > 0) {
          const applied = discounts.find((d) => d.rule.id === cart.discountLines[0]!.discountId)!;
          assert.equal(
            modelSaving(applied.rule, lines, ship),
            best,
            'the line names a discount that saves that much',
          );
          assert.ok(applied.usable);
        }
        const subtotal = lines.reduce((s, l) => s + l.unitPriceMinor * l.quantity, 0);
        assert.equal(cart.subtotalMinor, subtotal);
        assert.ok(cart.merchandiseDiscountMinor <= subtotal, 'never more than the merchandise');
        assert.ok(cart.shippingDiscountMinor <= (ship?.amountMinor ?? 0));
        assert.equal(cart.discountTotalMinor, cart.merchandiseDiscountMinor + cart.shippingDiscountMinor);
        assert.equal(cart.totalMinor, subtotal + (ship?.amountMinor ?? 0) - cart.discountTotalMinor);
        assert.equal(
          cart.lineDiscountsMinor.reduce((a, b) => a + b, 0),
          cart.merchandiseDiscountMinor,
        );
        cart.lineDiscountsMinor.forEach((d, i) => {
          assert.ok(
            d >= 0 && d <= lines[i]!.unitPriceMinor * lines[i]!.quantity,
            `line ${i} within its price`,
          );
        });
      }),
      { numRuns: 500 },
    );
  });

  test('each discount alone saves what the model says, whatever the pairing (buy X get Y above all)', () => {
    const bxgy = arbCriteria
      .filter((c) => c.type === 'BUY_X_GET_Y')
      .chain((c) => arbTemplate(c).map((t) => [c, t] as const));
    const any = arbCriteria.chain((c) => arbTemplate(c).map((t) => [c, t] as const));
    fc.assert(
      fc.property(arbLines, arbShipping, fc.oneof(bxgy, any), (lines, ship, [c, t]) => {
        const r = rule(c, t);
        const saving = savingOf(r, lines, ship);
        assert.equal(saving.merchandise + saving.shipping, modelSaving(r, lines, ship));
      }),
      { numRuns: 2000 },
    );
  });

  test('percentOf is the exact half-up rounding, for amounts past 2^53 when multiplied', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 10000 }), (a, h) => {
        const exact = BigInt(a) * BigInt(h);
        const down = exact / 10000n;
        const expected = exact % 10000n >= 5000n ? down + 1n : down;
        assert.equal(BigInt(percentOf(a, h)), expected);
      }),
    );
  });

  test('allocate: the shares add up to the total, each between 0 and its weight', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e9 }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (weights, f) => {
          const sum = weights.reduce((a, b) => a + b, 0);
          const total = Math.floor(sum * f);
          const shares = allocate(total, weights);
          assert.equal(
            shares.reduce((a, b) => a + b, 0),
            total,
          );
          shares.forEach((s, i) => assert.ok(s >= 0 && s <= weights[i]!));
        },
      ),
    );
  });
});
