import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Emporium,
  MethodNotAllowedError,
  type ProductV2,
  type ProductV2Create,
  type ProductVariantV2,
} from '../../src/index.ts';
import {
  apiErrorBody,
  fakeFetch,
  instantSleep,
  json,
  type Answer,
  type SeenRequest,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const V2 = '/v2/commerce/products';
const money = (value: string) => ({ currency: 'USD', value });

function make(handler: (request: SeenRequest, index: number) => Answer) {
  const fake = fakeFetch(handler);
  const client = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    apiKey: 'k',
    fetch: fake.fetch,
    sleep: instantSleep().sleep,
  });
  return { client, calls: fake.calls };
}

/** What each call sent: method, path with query, and the JSON body. */
const sent = (calls: SeenRequest[]) =>
  calls.map((c) => [
    c.method,
    c.url.pathname + c.url.search,
    typeof c.body === 'string' ? JSON.parse(c.body) : undefined,
  ]);

/** Two pages (g0, g1 then g2) of gift cards, the second fetched with the cursor `next`. */
function twoPages(request: SeenRequest) {
  const second = request.url.searchParams.get('cursor') === 'next';
  const products = (second ? ['g2'] : ['g0', 'g1']).map((id) => ({ id, type: 'GIFT_CARD' }));
  return json(200, {
    products,
    pagination: {
      hasNextPage: !second,
      nextPageCursor: second ? null : 'next',
      nextPageUrl: second ? null : `${V2}?cursor=next`,
    },
  });
}

/** Answers GET .../{ids} with the ids in the order asked, as the server does. */
function byIds(request: SeenRequest) {
  const ids = decodeURIComponent(request.url.pathname.split('/').pop()!).split(',');
  return json(200, { products: ids.map((id) => ({ id, type: 'SERVICE' })) });
}

const service: ProductV2Create = {
  type: 'SERVICE',
  storePageId: 'sp1',
  name: 'Tailoring',
  variantAttributes: ['Length'],
  variants: [
    {
      sku: 'TAILOR-60',
      attributes: { Length: '60 min' },
      pricing: { basePrice: money('80.00') },
      stock: { unlimited: true },
    },
  ],
};

const giftCard: ProductV2Create = {
  type: 'GIFT_CARD',
  storePageId: 'sp1',
  name: 'Gift card',
  variants: [
    { sku: 'GIFT-25', pricing: { basePrice: money('25.00') } },
    { sku: 'GIFT-50', pricing: { basePrice: money('50.00') } },
  ],
};

describe('client.v2.products', () => {
  test('list and changedSince send the filters to /v2/commerce/products, a type list comma-separated, then the cursor alone', async () => {
    const { client, calls } = make(twoPages);
    const page = await client.v2.products.list({ query: 'gift', type: ['SERVICE', 'GIFT_CARD'] });
    assert.deepEqual(
      page.items.map((p) => p.id),
      ['g0', 'g1'],
    );
    assert.equal(page.items, page.products);
    const ids: string[] = [];
    for await (const product of client.v2.products.list({ type: 'GIFT_CARD' })) ids.push(product.id);
    assert.deepEqual(ids, ['g0', 'g1', 'g2']);
    assert.equal((await client.v2.products.list().toArray()).length, 3);
    assert.equal((await client.v2.products.changedSince('2026-05-01T10:00:00.123Z').toArray()).length, 3);
    assert.deepEqual(
      calls.map((c) => c.url.pathname + c.url.search),
      [
        `${V2}?query=gift&type=SERVICE%2CGIFT_CARD`,
        `${V2}?type=GIFT_CARD`,
        `${V2}?cursor=next`,
        V2,
        `${V2}?cursor=next`,
        `${V2}?modifiedAfter=2026-05-01T10%3A00%3A00.123Z&modifiedBefore=9999-12-31T23%3A59%3A59.999Z`,
        `${V2}?cursor=next`,
      ],
    );
  });

  test('get: one id gives the product; ids give products in the order asked, 50 a request', async () => {
    const { client, calls } = make(byIds);
    const one = await client.v2.products.get('s/1');
    assert.deepEqual(one, { id: 's/1', type: 'SERVICE' });
    const ids = Array.from({ length: 120 }, (_, i) => `p${i}`).reverse();
    const many: ProductV2[] = await client.v2.products.get(ids);
    assert.deepEqual(
      many.map((p) => p.id),
      ids,
    );
    assert.equal(calls[0]!.url.pathname, `${V2}/s%2F1`);
    assert.deepEqual(
      calls.slice(1).map((c) => c.url.pathname.slice(V2.length + 1).split(',').length),
      [50, 50, 20],
    );
  });

  test('create, update (seoData, productAttributeNames) and delete go to the v2 routes', async () => {
    const { client, calls } = make((request) =>
      request.method === 'DELETE'
        ? new Response(null, { status: 204 })
        : json(request.url.pathname === V2 ? 201 : 200, { id: 'p1', type: 'SERVICE' }),
    );
    const products = client.v2.products;
    assert.equal((await products.create(service)).type, 'SERVICE');
    await products.create(giftCard);
    await products.update('p1', {
      seoData: { title: 'Tailoring', description: 'Hems and sleeves' },
      productAttributeNames: ['Length'],
    });
    await products.delete('p1');
    assert.deepEqual(sent(calls), [
      ['POST', V2, service],
      ['POST', V2, giftCard],
      [
        'POST',
        `${V2}/p1`,
        {
          seoData: { title: 'Tailoring', description: 'Hems and sleeves' },
          productAttributeNames: ['Length'],
        },
      ],
      ['DELETE', `${V2}/p1`, undefined],
    ]);
  });

  test("a DIGITAL product's create is refused with 405: MethodNotAllowedError", async () => {
    const { client } = make(() =>
      json(405, apiErrorBody('METHOD_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE')),
    );
    await assert.rejects(
      client.v2.products.create({
        type: 'DIGITAL',
        storePageId: 'sp1',
        pricing: { basePrice: money('9.00') },
      }),
      (e: unknown) =>
        e instanceof MethodNotAllowedError && e.subtype === 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  });

  test('client.products stays on 1.1, a client of its own', async () => {
    const { client, calls } = make(byIds);
    await client.products.get('p1');
    await client.v2.products.get('p1');
    assert.deepEqual(
      calls.map((c) => c.url.pathname),
      ['/1.1/commerce/products/p1', `${V2}/p1`],
    );
    assert.notEqual(client.products, client.v2.products);
    assert.equal(client.v2.products.basePath, V2);
    assert.equal(client.products.basePath, '/1.1/commerce/products');
    assert.ok(Object.isFrozen(client.v2));
  });
});

describe('client.v2.products.images and .variants', () => {
  test('upload is multipart to the v2 images route; waitUntilReady polls its status', async () => {
    const answers = [
      json(202, { imageId: 'i1' }),
      json(200, { id: 'i1', status: 'QUEUED' }),
      json(200, { id: 'i1', status: 'PROCESSING' }),
      json(200, { id: 'i1', status: 'READY' }),
    ];
    const { client, calls } = make((_request, index) => answers[index]!);
    const { imageId } = await client.v2.products.images.upload('p1', new Uint8Array([1, 2, 3]), {
      filename: 'card.png',
    });
    assert.equal(imageId, 'i1');
    assert.ok(calls[0]!.body instanceof FormData);
    assert.equal((calls[0]!.body.get('file') as File).name, 'card.png');
    assert.deepEqual(await client.v2.products.images.waitUntilReady('p1', imageId), {
      id: 'i1',
      status: 'READY',
    });
    assert.deepEqual(
      calls.map((c) => [c.method, c.url.pathname]),
      [
        ['POST', `${V2}/p1/images`],
        ['GET', `${V2}/p1/images/i1/status`],
        ['GET', `${V2}/p1/images/i1/status`],
        ['GET', `${V2}/p1/images/i1/status`],
      ],
    );
  });

  test('status, alt text, order and delete of an image; create, update (gtin), image and delete of a variant', async () => {
    const { client, calls } = make((request) => {
      if (request.method === 'DELETE' || request.url.pathname.endsWith('/order')) {
        return new Response(null, { status: 204 });
      }
      if (request.url.pathname.endsWith('/image')) return new Response(null, { status: 204 });
      if (request.url.pathname.endsWith('/status')) return json(200, { id: 'i1', status: 'READY' });
      if (request.url.pathname.endsWith('/variants')) return json(201, { id: 'v2', sku: 'MUG-L' });
      return json(200, { id: request.url.pathname.split('/').pop() });
    });
    const { images, variants } = client.v2.products;
    assert.deepEqual(await images.status('p1', 'i1'), { id: 'i1', status: 'READY' });
    await images.setAltText('p1', 'i1', 'A gift card');
    await images.update('p1', 'i1', { altText: 'A gift card, boxed' });
    await images.reorder('p1', 'i1', 'i0');
    await images.delete('p1', 'i1');
    const created: ProductVariantV2 = await variants.create('p1', {
      sku: 'MUG-L',
      attributes: { Size: 'L' },
      pricing: { basePrice: money('12.00') },
      gtin: '0123-4567-8901-28',
      mpn: 'MPN-1234',
    });
    assert.equal(created.id, 'v2');
    await variants.update('p1', 'v2', { gtin: '96385074', mpn: null });
    await variants.setImage('p1', 'v2', null);
    await variants.delete('p1', 'v2');
    assert.deepEqual(sent(calls), [
      ['GET', `${V2}/p1/images/i1/status`, undefined],
      ['POST', `${V2}/p1/images/i1`, { altText: 'A gift card' }],
      ['POST', `${V2}/p1/images/i1`, { altText: 'A gift card, boxed' }],
      ['POST', `${V2}/p1/images/i1/order`, { afterImageId: 'i0' }],
      ['DELETE', `${V2}/p1/images/i1`, undefined],
      [
        'POST',
        `${V2}/p1/variants`,
        {
          sku: 'MUG-L',
          attributes: { Size: 'L' },
          pricing: { basePrice: money('12.00') },
          gtin: '0123-4567-8901-28',
          mpn: 'MPN-1234',
        },
      ],
      ['POST', `${V2}/p1/variants/v2`, { gtin: '96385074', mpn: null }],
      ['POST', `${V2}/p1/variants/v2/image`, { imageId: null }],
      ['DELETE', `${V2}/p1/variants/v2`, undefined],
    ]);
  });
});

describe('the v2 types (checked by tsc)', () => {
  test('a product narrows on type; 1.1 knows no SERVICE products, v2 lists no unknown type', () => {
    const summary = (product: ProductV2): string => {
      switch (product.type) {
        case 'PHYSICAL':
          return product.variants.map((v) => v.gtin ?? v.sku).join();
        case 'SERVICE':
          return product.variants.map((v) => v.stock.quantity).join();
        case 'GIFT_CARD':
          return product.variants.map((v) => v.pricing.basePrice.value).join();
        case 'DIGITAL':
          return product.digitalGood?.filename ?? '';
      }
    };
    const card = { type: 'GIFT_CARD', variants: [{ pricing: { basePrice: money('25.00') } }] };
    assert.equal(summary(card as ProductV2), '25.00');
    const { client } = make(() => json(200, {}));
    const typeOnly = () => {
      // @ts-expect-error: 1.1 creates PHYSICAL and DIGITAL products only
      void client.products.create({ ...service });
      // @ts-expect-error: not a product type
      void client.v2.products.list({ type: 'BOOK' });
      // @ts-expect-error: a gift card's variant has no stock
      void ((p: Extract<ProductV2, { type: 'GIFT_CARD' }>) => p.variants[0]!.stock);
    };
    assert.equal(typeof typeOnly, 'function');
  });
});
