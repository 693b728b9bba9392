import assert from 'node:assert/strict';
import { DiscountEnvelope } from '../../src/discounts/discounts.schemas.ts';
import { assertError, assertShape } from './shape.ts';
import type { Site, TestContext } from './test-app.ts';

/** Discounts v1 through the API, for the discounts.*.test.ts files. */

export const DISCOUNTS = '/v1/commerce/discounts';
export const DAY = 24 * 3600_000;

export const usd = (value: string) => ({ currency: 'USD', value });

export const invalid = (
  res: Parameters<typeof assertError>[0],
  message: RegExp,
  subtype = 'INVALID_ARGUMENT',
) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

let codes = 0;
/** A promo code no other test has used. */
export const code = () => `SAVE${++codes}`;

/** A 10 % off any order with a new promo code, the fields given replacing its own. */
export const body = (overrides: Record<string, unknown> = {}) => ({
  name: '10 % off',
  criteria: { type: 'ANY_ORDER' },
  template: { type: 'PERCENTAGE', percentage: 10 },
  trigger: { type: 'CODE', promoCode: code() },
  validFrom: '2025-12-01T00:00:00Z',
  ...overrides,
});

/** Discount calls through the API, by default with the site `main()` gives. */
export function discountCalls(ctx: () => TestContext, main: () => Site) {
  const create = (payload: object, s: Site = main()) => s.call({ method: 'POST', url: DISCOUNTS, payload });
  async function created(payload: object, s: Site = main()) {
    const res = await create(payload, s);
    assert.equal(res.statusCode, 201, res.body);
    assertShape(DiscountEnvelope, res.json());
    return res.json().discount;
  }
  const get = (id: string, s: Site = main()) => s.call({ method: 'GET', url: `${DISCOUNTS}/${id}` });
  /** The discounts stored for the website, whatever the API says. */
  const count = async (s: Site = main()) =>
    (
      await ctx()
        .db.selectFrom('discounts')
        .select(ctx().db.fn.countAll<number>().as('n'))
        .where('website_id', '=', s.websiteId)
        .executeTakeFirstOrThrow()
    ).n;
  return { create, created, get, count };
}
