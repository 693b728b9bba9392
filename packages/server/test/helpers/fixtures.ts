import { randomBytes } from 'node:crypto';
import type { SiteFixture } from '../../src/testing/fixtures/fixture.schemas.ts';
import { createOwner } from '../../src/sites/owners.service.ts';
import type { TestContext } from './test-app.ts';

const usd = (value: string) => ({ currency: 'USD', value });

/** An owner of no website yet, for a fixture to load for. */
export async function fixtureOwner(ctx: TestContext): Promise<string> {
  const email = `fixtures-${randomBytes(4).toString('hex')}@example.com`;
  await createOwner(ctx.api, { email, password: 'long enough password' });
  return email;
}

/**
 * A site with some of everything: each product type, a second store page, pictures, contacts
 * with address books, discounts on products, orders placed, shipped and canceled, an app with
 * its grant and a subscription.
 */
export function richFixture(): SiteFixture {
  return {
    website: {
      title: 'Fixture Pottery',
      currency: 'USD',
      measurementStandard: 'METRIC',
      timeZone: 'Europe/Paris',
    },
    storePages: [{ title: 'Classes' }],
    apiKeys: [{ name: 'Test suite', scopes: ['website.products', 'website.orders'] }],
    products: [
      {
        ref: 'mug',
        type: 'PHYSICAL',
        name: 'Stoneware Mug',
        description: '<p>Thrown by hand.</p>',
        tags: ['kitchen'],
        isVisible: true,
        variantAttributes: ['Glaze'],
        variants: [
          {
            sku: 'MUG-SAND',
            attributes: { Glaze: 'Sand' },
            pricing: { basePrice: usd('18.00') },
            stock: { quantity: 10 },
            shippingMeasurements: { weight: { unit: 'KILOGRAM', value: 0.4 } },
            gtin: '01234567890128',
          },
          {
            sku: 'MUG-SLATE',
            attributes: { Glaze: 'Slate' },
            pricing: { basePrice: usd('18.00'), salePrice: usd('15.00'), onSale: true },
            stock: { quantity: 5 },
          },
        ],
        images: [
          { generate: { colour: '#8a9aa8', size: 64 }, altText: 'A slate mug' },
          { generate: { colour: '#c9a66b', size: 48 }, altText: 'A sand mug' },
        ],
      },
      {
        ref: 'candle',
        type: 'PHYSICAL',
        name: 'Beeswax Candle',
        isVisible: true,
        variants: [{ sku: 'CANDLE', pricing: { basePrice: usd('12.00') }, stock: { unlimited: true } }],
      },
      {
        ref: 'class',
        storePage: 'Classes',
        type: 'SERVICE',
        name: 'Wheel Throwing Class',
        isVisible: true,
        variants: [{ sku: 'CLASS-SAT', pricing: { basePrice: usd('45.00') }, stock: { quantity: 8 } }],
      },
      {
        ref: 'gift',
        type: 'GIFT_CARD',
        name: 'Gift Card',
        isVisible: false,
        variants: [{ sku: 'GIFT-25', pricing: { basePrice: usd('25.00') } }],
      },
      {
        ref: 'pattern',
        type: 'DIGITAL',
        name: 'Glaze Recipes',
        pricing: { basePrice: usd('9.00') },
        seoOptions: { title: 'Glaze recipes (PDF)', description: null },
      },
    ],
    contacts: [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        locale: 'en-GB',
        primaryEmail: { email: 'ada@example.com', acceptsMarketing: true },
        addressBook: [
          {
            address: { line1: '12 Analytical Way', city: 'London', postalCode: 'N1 9GU', countryCode: 'GB' },
          },
          { address: { line1: '1 Engine Row', city: 'Cambridge', countryCode: 'GB' } },
        ],
      },
    ],
    discounts: [
      {
        name: 'Mugs 10% off',
        criteria: { type: 'PRODUCT', productId: 'mug' },
        template: { type: 'PERCENTAGE', percentage: 10 },
        trigger: { type: 'CODE', promoCode: 'MUG10' },
        validFrom: '2025-01-01T00:00:00Z',
      },
    ],
    orders: [
      order('F-1', [{ sku: 'MUG-SAND', quantity: 2, price: '18.00' }], 'FULFILLED'),
      order('F-2', [{ sku: 'MUG-SLATE', quantity: 1, price: '15.00' }], 'PENDING'),
      order('F-3', [{ sku: 'MUG-SAND', quantity: 3, price: '18.00' }], 'CANCELED'),
    ],
    apps: [
      {
        name: 'Inventory Sync',
        redirectUris: ['https://app.example.com/callback'],
        grant: { scopes: ['website.products', 'website.orders.read'] },
        webhookSubscriptions: [{ endpointUrl: 'https://hooks.example.com/orders', topics: ['order.create'] }],
      },
    ],
  };
}

/** An order of `lines`, its stock taken, by Grace Hopper, in the state given. */
export function order(
  reference: string,
  lines: { sku: string; quantity: number; price: string }[],
  state: 'PENDING' | 'FULFILLED' | 'CANCELED',
): NonNullable<SiteFixture['orders']>[number] {
  const total = lines.reduce((sum, l) => sum + Number(l.price) * 100 * l.quantity, 0);
  const money = usd((total / 100).toFixed(2));
  return {
    channelName: 'Fixture',
    externalOrderReference: reference,
    createdOn: '2026-01-02T10:00:00Z',
    priceTaxInterpretation: 'EXCLUSIVE',
    customerEmail: 'grace@example.com',
    shippingAddress: {
      firstName: 'Grace',
      lastName: 'Hopper',
      address1: '400 Cobol Street',
      city: 'Arlington',
      countryCode: 'US',
    },
    lineItems: lines.map((l) => ({
      lineItemType: 'PHYSICAL_PRODUCT' as const,
      sku: l.sku,
      quantity: l.quantity,
      unitPricePaid: usd(l.price),
    })),
    subtotal: money,
    grandTotal: money,
    inventoryBehavior: 'DEDUCT',
    fulfillmentStatus: state,
    ...(state === 'FULFILLED' && { fulfilledOn: '2026-01-03T09:00:00Z' }),
    fulfillments:
      state === 'FULFILLED'
        ? [
            {
              shipDate: '2026-01-03T09:00:00Z',
              carrierName: 'USPS',
              service: 'Ground',
              trackingNumber: '9400100000000000000000',
            },
          ]
        : [],
  };
}
