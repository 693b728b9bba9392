import assert from 'node:assert/strict';
import { ordersOf, seeOther, Shopper, shirt } from './shopper.ts';
import type { Site, TestContext } from './test-app.ts';

/** Discounts made through the API and orders placed at the store's checkout, for its tests. */

export const DISCOUNTS = '/v1/commerce/discounts';

/** POST of an automatic 10 % off any order, with the fields given replacing its own. */
export function postDiscount(site: Site, overrides: Record<string, unknown>) {
  return site.call({
    method: 'POST',
    url: DISCOUNTS,
    payload: {
      name: '10 % off',
      criteria: { type: 'ANY_ORDER' },
      template: { type: 'PERCENTAGE', percentage: 10 },
      trigger: { type: 'AUTO' },
      validFrom: '2025-01-01T00:00:00Z',
      ...overrides,
    },
  });
}

/** An automatic 10 % off any order, with the fields given replacing its own, created. */
export async function createDiscount(site: Site, overrides: Record<string, unknown>) {
  const res = await postDiscount(site, overrides);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().discount as { id: string; validFrom: string; validTo: string | null };
}

/** A cart of 2 × S on sale at 15.00 and 1 × M at 20.00: 50.00, shipping 5.00. */
export async function cartOfShirts(ctx: TestContext, site: Site) {
  const { product, small, medium } = await shirt(site, 5);
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(small, 2));
  seeOther(await shopper.add(medium, 1));
  return { shopper, product };
}

/** The website's one order as an app reads it, with its transaction document. */
export async function placed(ctx: TestContext, site: Site) {
  const [row] = await ordersOf(ctx, site.websiteId);
  const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${row!.id}` })).json();
  const docs = await site.call({ method: 'GET', url: `/1.0/commerce/transactions?orderId=${row!.id}` });
  return { order, document: docs.json().documents[0] };
}

export const cents = (values: { value: string }[]) =>
  values.reduce((sum, m) => sum + Math.round(Number(m.value) * 100), 0);

/** Each sales line's discountAmount, in the order of the order's lines. */
export const lineDiscounts = (document: { salesLineItems: { discountAmount: { value: string } }[] }) =>
  document.salesLineItems.map((l) => l.discountAmount.value);
