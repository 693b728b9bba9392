import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { updateAltText, uploadImage, type ImageDeps } from './catalog/images/images.service.ts';
import { createProduct } from './catalog/products.service.ts';
import { createOrder, fulfillOrder } from './orders/orders.service.ts';
import type { OrderDeps } from './orders/place-order.ts';
import { sampleOrderDraft } from './orders/sample-order.ts';
import { SCOPES } from './shared/scopes.ts';
import { createApiKey } from './sites/api-keys.service.ts';
import { createOwner } from './sites/owners.service.ts';
import { swatchPicture } from './media/images.ts';
import { createWebsite } from './sites/websites.service.ts';

export interface DemoSite {
  email: string;
  password: string;
  websiteId: string;
  storePageId: string;
  apiKey: string;
}

const HOUR_MS = 3600_000;
const usd = (value: string) => ({ currency: 'USD', value });

/** A small shop's catalogue: variants with options, a product on sale, unlimited stock. */
function demoProducts(storePageId: string) {
  return [
    {
      type: 'PHYSICAL' as const,
      storePageId,
      name: 'Stoneware Mug',
      isVisible: true,
      variantAttributes: ['Glaze'],
      variants: [
        {
          sku: 'DEMO-MUG-SAND',
          attributes: { Glaze: 'Sand' },
          pricing: { basePrice: usd('18.00') },
          stock: { quantity: 24 },
        },
        {
          sku: 'DEMO-MUG-SLATE',
          attributes: { Glaze: 'Slate' },
          pricing: { basePrice: usd('18.00') },
          stock: { quantity: 12 },
        },
      ],
    },
    {
      type: 'PHYSICAL' as const,
      storePageId,
      name: 'Canvas Tote',
      isVisible: true,
      variants: [
        {
          sku: 'DEMO-TOTE',
          pricing: { basePrice: usd('24.00'), salePrice: usd('19.00'), onSale: true },
          stock: { quantity: 40 },
        },
      ],
    },
    {
      type: 'PHYSICAL' as const,
      storePageId,
      name: 'Beeswax Candle',
      isVisible: true,
      variants: [{ sku: 'DEMO-CANDLE', pricing: { basePrice: usd('12.00') }, stock: { unlimited: true } }],
    },
    // The types only Products v2 shows (docs/products.md, "Products v2").
    {
      type: 'SERVICE' as const,
      storePageId,
      name: 'Wheel Throwing Class',
      isVisible: true,
      variantAttributes: ['Session'],
      variants: [
        {
          sku: 'DEMO-CLASS-SAT',
          attributes: { Session: 'Saturday' },
          pricing: { basePrice: usd('45.00') },
          stock: { quantity: 8 },
        },
        {
          sku: 'DEMO-CLASS-SUN',
          attributes: { Session: 'Sunday' },
          pricing: { basePrice: usd('45.00') },
          stock: { quantity: 8 },
        },
      ],
    },
    {
      type: 'GIFT_CARD' as const,
      storePageId,
      name: 'Gift Card',
      isVisible: true,
      variants: [
        { sku: 'DEMO-GIFT-25', pricing: { basePrice: usd('25.00') } },
        { sku: 'DEMO-GIFT-50', pricing: { basePrice: usd('50.00') } },
      ],
    },
  ];
}

/**
 * Three orders placed over the last two days, the oldest shipped, so the owner pages and the
 * Orders API show something at once. They go through the same services as every order: stock
 * is taken, profiles and transaction documents made.
 */
async function demoOrders(deps: OrderDeps, websiteId: string): Promise<void> {
  const now = deps.clock.now().getTime();
  const placed = [];
  for (const hoursAgo of [50, 26, 3]) {
    const draft = await sampleOrderDraft(deps, websiteId, new Date(now - hoursAgo * HOUR_MS));
    placed.push(await createOrder(deps, websiteId, draft));
  }
  const oldest = placed[0]!.order;
  await fulfillOrder(deps, websiteId, oldest.id, {
    shouldSendNotification: false,
    shipments: [
      {
        shipDate: new Date(oldest.placedOn.getTime() + 20 * HOUR_MS).toISOString(),
        carrierName: 'USPS',
        service: 'Ground Advantage',
        trackingNumber: '9400100000000000000000',
        trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000',
      },
    ],
  });
}

/** A picture for each demo product, so the demo store shows images: a colour and its alt text. */
const DEMO_PICTURES: Record<string, [colour: string, altText: string]> = {
  'Stoneware Mug': ['#8a9aa8', 'A slate-glazed stoneware mug'],
  'Canvas Tote': ['#c9a66b', 'A sand-coloured canvas tote bag'],
  'Beeswax Candle': ['#e8c170', 'A honey-coloured beeswax candle'],
  'Wheel Throwing Class': ['#9c6b4e', "Clay on a potter's wheel"],
  'Gift Card': ['#2f5d50', 'A green gift card'],
};

/** Uploads the product's demo picture through the image service; workers make its widths. */
async function addDemoPicture(deps: ImageDeps, websiteId: string, product: Buffer): Promise<void> {
  const { id, name } = JSON.parse(product.toString()) as { id: string; name: string };
  const picture = DEMO_PICTURES[name];
  if (!picture) return;
  const stream = Readable.from([await swatchPicture(picture[0])]);
  const { imageId } = await uploadImage(deps, websiteId, id, { stream, fileName: 'demo.png' }, 'v2');
  await updateAltText(deps, websiteId, id, imageId, picture[1], 'v2');
}

/**
 * On a database without owners, a demo owner, website (with products and orders) and
 * all-scopes API key, so a fresh `npm start` can be tried with curl at once. Returns the
 * secrets to show once, or undefined.
 */
export async function seedDemoSite(deps: OrderDeps & ImageDeps): Promise<DemoSite | undefined> {
  const any = await deps.db.selectFrom('owners').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  await createOwner(deps, { email, password, firstName: 'Demo', lastName: 'Owner' });
  const { websiteId, storePageId } = await createWebsite(deps, { ownerEmail: email, title: 'Demo Store' });
  const { apiKey } = await createApiKey(deps, { websiteId, name: 'Demo key', scopes: SCOPES.join(',') });
  for (const product of demoProducts(storePageId)) {
    await addDemoPicture(deps, websiteId, await createProduct(deps, websiteId, product, 'v2'));
  }
  await demoOrders(deps, websiteId);
  return { email, password, websiteId, storePageId, apiKey };
}
