import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { money } from './factories.ts';
import { seeOther, Shopper, text } from './shopper.ts';
import type { Site, TestContext } from './test-app.ts';

/** Gift cards in tests: the product, its purchase through the store, and what a code looks like. */

/** A code as the store prints it: four groups of four, no 0, O, 1 or I. */
export const CODE = /\b[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}\b/g;

/** A GIFT_CARD product of 25.00 and 50.00 (its variants' ids in that order). */
export async function giftCardProduct(
  site: Site,
): Promise<{ productId: string; of25: string; of50: string }> {
  const sku = () => `GIFT-${randomBytes(4).toString('hex')}`;
  const res = await site.call({
    method: 'POST',
    url: '/v2/commerce/products',
    payload: {
      type: 'GIFT_CARD',
      storePageId: site.storePageId,
      name: 'Gift card',
      isVisible: true,
      variants: [
        { sku: sku(), pricing: { basePrice: money('25.00') } },
        { sku: sku(), pricing: { basePrice: money('50.00') } },
      ],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const [of25, of50] = res.json().variants.map((v: { id: string }) => v.id) as string[];
  return { productId: res.json().id, of25: of25!, of50: of50! };
}

/** Buys `quantity` cards of the variant through the store; the order's id and the codes its confirmation shows. */
export async function buyGiftCards(
  ctx: TestContext,
  site: Site,
  variantId: string,
  quantity = 1,
  fields: Record<string, string> = {},
): Promise<{ orderId: string; codes: string[]; confirmation: string }> {
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(variantId, quantity));
  const confirmation = seeOther(await shopper.checkout(fields));
  const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
  assert.ok(orderId, confirmation);
  const page = await shopper.get(confirmation);
  assert.equal(page.statusCode, 200, page.body);
  const codes = text(page).match(CODE) ?? [];
  return { orderId, codes: [...codes], confirmation: text(page) };
}

/** A card's row, found by its last four characters. */
export function cardByLastFour(ctx: TestContext, websiteId: string, code: string) {
  return ctx.db
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('last_four', '=', code.slice(-4))
    .executeTakeFirstOrThrow();
}

/** No card fields: a gift card that covers the total needs none. */
export const NO_CARD = { cardNumber: '', cardExpiry: '', cardCvc: '' };
