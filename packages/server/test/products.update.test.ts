import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Product } from '../src/catalog/products.schemas.ts';
import { randomIds } from '../src/shared/ids.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { createProduct, digital, money, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

const PRODUCTS = '/1.1/commerce/products';
const MISSING_ID = 'ffffffffffffffffffffffff';

const update = (id: string, body: unknown, s: Site = site) =>
  s.call({ method: 'POST', url: `${PRODUCTS}/${id}`, payload: body as object });
const remove = (id: string, s: Site = site) => s.call({ method: 'DELETE', url: `${PRODUCTS}/${id}` });
const read = (id: string, s: Site = site) => s.call({ method: 'GET', url: `${PRODUCTS}/${id}` });
const current = async (id: string, s: Site = site) => {
  const res = await read(id, s);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
};
/** Updates and returns the product; fails the test on any error. */
const updated = async (id: string, body: unknown) => {
  const res = await update(id, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const invalid = (res: Awaited<ReturnType<typeof update>>, message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);
const notFound = (res: Awaited<ReturnType<typeof update>>) =>
  assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /not found/);
const wrap = (value: unknown) => ({ present: true, value });

/** A product with every updatable field set, so that a partial update can show what it left alone. */
const fullPhysical = (overrides: Record<string, unknown> = {}) =>
  physical(site, {
    name: 'Full Mug',
    description: '<p>A <b>full</b> mug</p>',
    tags: ['kitchen', 'mug'],
    isVisible: true,
    seoOptions: { title: 'SEO title', description: 'SEO description' },
    variantAttributes: ['Size', 'Color'],
    variants: [
      variant(`FULL-S-${Math.random()}`, { attributes: { Size: 'S', Color: 'Red' } }),
      variant(`FULL-M-${Math.random()}`, { attributes: { Size: 'M', Color: 'Red' } }),
    ],
    ...overrides,
  });

describe('partial update', () => {
  test('answers 200 with the Product; fields left out are unchanged', async () => {
    const before = await createProduct(site, fullPhysical());
    ctx.clock.advance(1000);
    const res = await update(before.id, { name: 'Renamed Mug' });
    assert.equal(res.statusCode, 200);
    assertShape(Product, res.json());
    assert.deepEqual(res.json(), { ...before, name: 'Renamed Mug', modifiedOn: res.json().modifiedOn });
    assert.deepEqual(await current(before.id), res.json());
  });

  test('every field may be sent plain or as a {present: true, value} change-wrapper', async () => {
    for (const form of ['plain', 'wrapped'] as const) {
      const cases: [field: string, value: unknown, expected: unknown][] = [
        ['name', 'Changed name', 'Changed name'],
        ['description', '<p>Changed</p>', '<p>Changed</p>'],
        ['urlSlug', `Changed-Slug-${form}`, `changed-slug-${form}`],
        ['tags', ['changed'], ['changed']],
        ['isVisible', false, false],
        ['seoOptions', { title: 'New', description: 'Newer' }, { title: 'New', description: 'Newer' }],
        ['variantAttributes', ['Size'], ['Size']],
      ];
      const product = await createProduct(site, fullPhysical());
      for (const [field, value, expected] of cases) {
        const sent = form === 'plain' ? value : wrap(value);
        const res = await update(product.id, { [field]: sent });
        assert.equal(res.statusCode, 200, `${form} ${field}: ${res.body}`);
        assert.deepEqual(res.json()[field], expected, `${form} ${field}`);
      }
    }
  });

  test('{present: false} leaves the field unchanged', async () => {
    const before = await createProduct(site, fullPhysical());
    const res = await update(before.id, {
      name: { present: false },
      seoOptions: { present: false },
      tags: { present: false },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), before);
    const mixed = await updated(before.id, { name: { present: false }, isVisible: false });
    assert.equal(mixed.name, before.name);
    assert.equal(mixed.isVisible, false);
  });

  test('an empty body {} answers the product unchanged', async () => {
    const before = await createProduct(site, fullPhysical());
    ctx.clock.advance(1000);
    const res = await update(before.id, {});
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), before);
    assert.deepEqual(await current(before.id), before);
  });

  test('the list search finds the product by its new name, no longer by its old one', async () => {
    const s = await ctx.site();
    const product = await createProduct(
      s,
      physical(s, { name: 'Oldname Kettle', variants: [variant('K-1')] }),
    );
    const res = await update(product.id, { name: 'Newname Kettle' }, s);
    assert.equal(res.statusCode, 200, res.body);
    const search = async (query: string) =>
      (await s.call({ method: 'GET', url: `${PRODUCTS}?query=${query}` }))
        .json()
        .products.map((p: { id: string }) => p.id);
    assert.deepEqual(await search('newname'), [product.id]);
    assert.deepEqual(await search('oldname'), []);
  });
});

describe('name, description and urlSlug', () => {
  test('name: 200 characters pass, 201 fail', async () => {
    const product = await createProduct(site, physical(site));
    assert.equal((await updated(product.id, { name: 'n'.repeat(200) })).name.length, 200);
    invalid(await update(product.id, { name: 'n'.repeat(201) }), /^name: at most 200 characters$/);
    invalid(await update(product.id, { name: wrap('n'.repeat(201)) }), /^name: /);
    assert.equal((await current(product.id)).name, 'n'.repeat(200));
  });

  test('null is a 400 on fields that cannot be cleared', async () => {
    const product = await createProduct(site, fullPhysical());
    for (const field of ['name', 'description', 'urlSlug', 'tags', 'isVisible', 'variantAttributes']) {
      invalid(await update(product.id, { [field]: null }), new RegExp(`^${field}: `));
      invalid(await update(product.id, { [field]: wrap(null) }), new RegExp(`^${field}: `));
    }
    assert.deepEqual(await current(product.id), product);
  });

  test('the description is sanitized: no script, no event handlers, no javascript: URLs', async () => {
    const product = await createProduct(site, physical(site));
    const res = await updated(product.id, {
      description:
        '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">x</a> <b>bold</b></p>',
    });
    assert.equal(res.description, '<p>Hi <a>x</a> <b>bold</b></p>');
    assert.equal((await current(product.id)).description, '<p>Hi <a>x</a> <b>bold</b></p>');
  });

  test('urlSlug is lower-cased, and the product url follows it', async () => {
    const product = await createProduct(site, physical(site, { name: 'Slug Source' }));
    const res = await updated(product.id, { urlSlug: 'Brand-New-Slug' });
    assert.equal(res.urlSlug, 'brand-new-slug');
    assert.equal(res.url, `${BASE_URL}/s/${site.websiteId}/shop/p/brand-new-slug`);
  });

  test('urlSlug must be alphanumerics with single hyphens, at most 200 characters', async () => {
    const product = await createProduct(site, physical(site));
    for (const slug of ['a--b', '-a', 'a-', 'a b', 'ä', 'a_b']) {
      invalid(await update(product.id, { urlSlug: slug }), /^urlSlug: /);
    }
    invalid(await update(product.id, { urlSlug: '' }), /^urlSlug: /);
    invalid(await update(product.id, { urlSlug: 's'.repeat(201) }), /^urlSlug: at most 200 characters$/);
    assert.equal((await updated(product.id, { urlSlug: 's'.repeat(200) })).urlSlug.length, 200);
  });

  test('a urlSlug taken by another product on the store page is a 409 URL_SLUG_UNAVAILABLE', async () => {
    await createProduct(site, physical(site, { urlSlug: 'already-taken' }));
    const product = await createProduct(site, physical(site, { urlSlug: 'mine' }));
    for (const slug of ['already-taken', 'Already-Taken']) {
      assertError(
        await update(product.id, { urlSlug: slug }),
        409,
        'CONFLICT',
        'URL_SLUG_UNAVAILABLE',
        /urlSlug/,
      );
    }
    assert.equal((await current(product.id)).urlSlug, 'mine');
  });

  test('a product may be sent its own current urlSlug, in any case', async () => {
    const product = await createProduct(site, physical(site, { urlSlug: 'keep-me' }));
    assert.equal((await updated(product.id, { urlSlug: 'keep-me' })).urlSlug, 'keep-me');
    assert.equal((await updated(product.id, { urlSlug: 'KEEP-ME' })).urlSlug, 'keep-me');
  });

  test("a urlSlug used on another website's store page is free here", async () => {
    const other = await ctx.site();
    await createProduct(other, physical(other, { urlSlug: 'shared-slug' }));
    const product = await createProduct(site, physical(site));
    assert.equal((await updated(product.id, { urlSlug: 'shared-slug' })).urlSlug, 'shared-slug');
  });
});

describe('seoOptions, tags and isVisible', () => {
  test('seoOptions: an object sets it, null clears it', async () => {
    const product = await createProduct(site, physical(site));
    assert.equal(product.seoOptions, null);
    const set = await updated(product.id, { seoOptions: { title: 'Title', description: 'Desc' } });
    assert.deepEqual(set.seoOptions, { title: 'Title', description: 'Desc' });
    const titleOnly = await updated(product.id, { seoOptions: { title: 'Only title' } });
    assert.deepEqual(titleOnly.seoOptions, { title: 'Only title', description: null });
    assert.equal((await updated(product.id, { seoOptions: null })).seoOptions, null);
    await updated(product.id, { seoOptions: { title: 'Again' } });
    assert.equal((await updated(product.id, { seoOptions: wrap(null) })).seoOptions, null);
    assert.equal((await current(product.id)).seoOptions, null);
  });

  test('tags are replaced, not merged', async () => {
    const product = await createProduct(site, physical(site, { tags: ['a', 'b'] }));
    assert.deepEqual((await updated(product.id, { tags: ['c'] })).tags, ['c']);
    assert.deepEqual((await updated(product.id, { tags: [] })).tags, []);
    assert.deepEqual((await current(product.id)).tags, []);
  });

  test('isVisible toggles both ways', async () => {
    const product = await createProduct(site, physical(site));
    assert.equal(product.isVisible, false);
    assert.equal((await updated(product.id, { isVisible: true })).isVisible, true);
    assert.equal((await current(product.id)).isVisible, true);
    assert.equal((await updated(product.id, { isVisible: false })).isVisible, false);
    invalid(await update(product.id, { isVisible: 'true' }), /^isVisible: /);
  });
});

describe('variantAttributes', () => {
  const attributesOf = (product: { variants: { attributes: Record<string, string> }[] }) =>
    product.variants.map((v) => v.attributes);

  test('a name removed disappears from every variant; a name added appears with an empty value', async () => {
    const product = await createProduct(site, fullPhysical());
    const res = await updated(product.id, { variantAttributes: ['Size', 'Material'] });
    assert.deepEqual(res.variantAttributes, ['Size', 'Material']);
    assert.deepEqual(attributesOf(res), [
      { Size: 'S', Material: '' },
      { Size: 'M', Material: '' },
    ]);
    assert.deepEqual(attributesOf(await current(product.id)), attributesOf(res));
    assert.deepEqual(
      res.variants.map((v: { sku: string }) => v.sku),
      product.variants.map((v: { sku: string }) => v.sku),
    );
  });

  test('a single variant may gain a first attribute name, and lose it again', async () => {
    const product = await createProduct(site, physical(site));
    const gained = await updated(product.id, { variantAttributes: ['Color'] });
    assert.deepEqual(attributesOf(gained), [{ Color: '' }]);
    const lost = await updated(product.id, { variantAttributes: [] });
    assert.deepEqual(lost.variantAttributes, []);
    assert.deepEqual(attributesOf(lost), [{}]);
  });

  test('a change that leaves two variants with the same values is a 400 and changes nothing', async () => {
    const product = await createProduct(site, fullPhysical());
    ctx.clock.advance(1000);
    invalid(await update(product.id, { variantAttributes: ['Color'] }), /^variantAttributes: /);
    invalid(
      await update(product.id, { name: 'Not applied', variantAttributes: ['Color', 'Material'] }),
      /^variantAttributes: /,
    );
    invalid(await update(product.id, { variantAttributes: [] }), /^variantAttributes: /);
    assert.deepEqual(await current(product.id), product);
  });

  test('names listed twice or more than six are a 400', async () => {
    const product = await createProduct(site, physical(site));
    invalid(await update(product.id, { variantAttributes: ['Size', 'Size'] }), /^variantAttributes/);
    invalid(
      await update(product.id, { variantAttributes: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }),
      /^variantAttributes: at most 6/,
    );
    assert.deepEqual(await current(product.id), product);
  });

  test('on a DIGITAL product variantAttributes is a 400', async () => {
    const product = await createProduct(site, digital(site));
    invalid(
      await update(product.id, { variantAttributes: ['Size'] }),
      /^variantAttributes: a DIGITAL product has no variantAttributes/,
    );
    assert.deepEqual(await current(product.id), product);
  });
});

describe('pricing', () => {
  test('updates the pricing of a DIGITAL product', async () => {
    const product = await createProduct(site, digital(site));
    const sale = await updated(product.id, {
      pricing: { basePrice: money('7.5'), salePrice: money('6'), onSale: true },
    });
    assert.deepEqual(sale.pricing, { basePrice: money('7.50'), salePrice: money('6.00'), onSale: true });
    const wrapped = await updated(product.id, { pricing: wrap({ basePrice: money('8') }) });
    assert.deepEqual(wrapped.pricing, { basePrice: money('8.00'), salePrice: money('0.00'), onSale: false });
    assert.deepEqual((await current(product.id)).pricing, wrapped.pricing);
  });

  test('a price in another currency than the website one is a 400 CURRENCY_MISMATCH', async () => {
    const product = await createProduct(site, digital(site));
    invalid(
      await update(product.id, { pricing: { basePrice: money('7.00', 'EUR') } }),
      /must be the website currency USD/,
      'CURRENCY_MISMATCH',
    );
    assert.deepEqual(await current(product.id), product);
  });

  test('pricing on a PHYSICAL product is a 400', async () => {
    const product = await createProduct(site, physical(site));
    invalid(
      await update(product.id, { pricing: { basePrice: money('7.00') } }),
      /^pricing: a PHYSICAL product has no product-level pricing/,
    );
    assert.deepEqual(await current(product.id), product);
  });

  test('a price out of bounds is a 400 and changes nothing', async () => {
    const product = await createProduct(site, digital(site));
    invalid(
      await update(product.id, { name: 'Not applied', pricing: { basePrice: money('1000000.01') } }),
      /pricing\.basePrice\.value: at most 1000000/,
    );
    assert.deepEqual(await current(product.id), product);
  });
});

describe('modifiedOn', () => {
  test('moves strictly later on every successful update; createdOn stays', async () => {
    const product = await createProduct(site, fullPhysical());
    let last = product.modifiedOn as string;
    for (const body of [
      { name: 'One' },
      { tags: ['two'] },
      { isVisible: false },
      { seoOptions: null },
      { variantAttributes: ['Size', 'Color', 'Fit'] },
      { name: wrap('Three') },
    ]) {
      ctx.clock.advance(500);
      const res = await updated(product.id, body);
      assert.ok(Date.parse(res.modifiedOn) > Date.parse(last), `${JSON.stringify(body)}: modifiedOn moved`);
      assert.equal(res.createdOn, product.createdOn);
      assert.equal((await current(product.id)).modifiedOn, res.modifiedOn);
      last = res.modifiedOn;
    }
  });

  test('a failed update changes nothing, modifiedOn included', async () => {
    await createProduct(site, physical(site, { urlSlug: 'failed-update-taken' }));
    const product = await createProduct(site, fullPhysical());
    ctx.clock.advance(1000);
    const failures = [
      await update(product.id, { name: 'Not applied', urlSlug: 'failed-update-taken' }),
      await update(product.id, { name: 'Not applied', variantAttributes: ['Color'] }),
      await update(product.id, { name: 'Not applied', pricing: { basePrice: money('1') } }),
      await update(product.id, { name: 'Not applied', description: 'd'.repeat(102_401) }),
      await update(product.id, { name: 'n'.repeat(201) }),
    ];
    assert.deepEqual(
      failures.map((r) => r.statusCode),
      [409, 400, 400, 400, 400],
    );
    assert.deepEqual(await current(product.id), product);
  });
});

describe('update of a product that is not there', () => {
  test('an unknown id is a 404', async () => {
    notFound(await update(MISSING_ID, { name: 'x' }));
    notFound(await update(MISSING_ID, {}));
  });

  test("another website's product is a 404 and is left unchanged", async () => {
    const other = await ctx.site();
    const foreign = await createProduct(other, physical(other, { name: 'Foreign' }));
    notFound(await update(foreign.id, { name: 'Hijacked' }));
    notFound(await update(foreign.id, {}));
    assert.deepEqual(await current(foreign.id, other), foreign);
  });
});

describe('delete a product', () => {
  const variantCount = async (productId: string) =>
    Number(
      (
        await ctx.db
          .selectFrom('variants')
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .where('product_id', '=', productId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('answers 204 with an empty body; the product and its variants are gone', async () => {
    const product = await createProduct(site, fullPhysical());
    assert.equal(await variantCount(product.id), 2);
    const res = await remove(product.id);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    notFound(await read(product.id));
    assert.equal(await variantCount(product.id), 0);
    const listed = await site.call({ method: 'GET', url: PRODUCTS });
    assert.ok(!listed.json().products.some((p: { id: string }) => p.id === product.id));
  });

  test('deleting again, or updating the deleted product, is a 404', async () => {
    const product = await createProduct(site, physical(site));
    assert.equal((await remove(product.id)).statusCode, 204);
    notFound(await remove(product.id));
    notFound(await update(product.id, { name: 'Gone' }));
  });

  test('an unknown id is a 404', async () => {
    notFound(await remove(MISSING_ID));
  });

  test("another website's product is a 404 and still exists", async () => {
    const other = await ctx.site();
    const foreign = await createProduct(other, physical(other, { name: 'Foreign' }));
    notFound(await remove(foreign.id));
    assert.deepEqual(await current(foreign.id, other), foreign);
    assert.equal(await variantCount(foreign.id), 1);
  });

  test("a deleted product's urlSlug and SKUs can be used again", async () => {
    const product = await createProduct(
      site,
      physical(site, { urlSlug: 'reusable-slug', variants: [variant('REUSABLE-SKU')] }),
    );
    assert.equal((await remove(product.id)).statusCode, 204);
    const again = await createProduct(
      site,
      physical(site, { urlSlug: 'reusable-slug', variants: [variant('REUSABLE-SKU')] }),
    );
    assert.equal(again.urlSlug, 'reusable-slug');
  });

  test('a Content-Type: application/json header with no body is accepted', async () => {
    const product = await createProduct(site, physical(site));
    const res = await site.call({
      method: 'DELETE',
      url: `${PRODUCTS}/${product.id}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 204, res.body);
  });
});

describe('scopes', () => {
  let readOnly: Site;
  let product: { id: string; name: string };
  before(async () => {
    readOnly = await ctx.site({ scopes: ['website.products.read'] });
    // A second key of the same website with the write scope, to put a product there.
    const { apiKey } = await createApiKey(
      { db: ctx.db, clock: ctx.clock, ids: randomIds },
      { websiteId: readOnly.websiteId, scopes: 'website.products' },
    );
    const res = await ctx.app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: { authorization: `Bearer ${apiKey}`, 'user-agent': 'emporium-tests/1.0' },
      payload: physical(readOnly, { name: 'Read Only Store Mug' }),
    });
    assert.equal(res.statusCode, 201, res.body);
    product = res.json();
  });
  const missingScope = (res: Awaited<ReturnType<typeof update>>) =>
    assertError(res, 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE', /website\.products/);

  test('website.products.read may list and get products', async () => {
    const listed = await readOnly.call({ method: 'GET', url: PRODUCTS });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().products.map((p: { id: string }) => p.id),
      [product.id],
    );
    assert.deepEqual(await current(product.id, readOnly), product);
  });

  test('website.products.read may not create, update or delete: 403 MISSING_SCOPE', async () => {
    missingScope(
      await readOnly.call({ method: 'POST', url: PRODUCTS, payload: physical(readOnly, { name: 'Nope' }) }),
    );
    missingScope(await update(product.id, { name: 'Nope' }, readOnly));
    missingScope(await remove(product.id, readOnly));
    assert.deepEqual(await current(product.id, readOnly), product);
    const listed = await readOnly.call({ method: 'GET', url: PRODUCTS });
    assert.equal(listed.json().products.length, 1, 'nothing was created');
  });

  test('website.products alone may read too (a write scope implies its read scope)', async () => {
    const writer = await ctx.site({ scopes: ['website.products'] });
    const created = await createProduct(writer, physical(writer, { name: 'Writer Mug' }));
    assert.deepEqual(await current(created.id, writer), created);
  });

  test('a credential without a products scope may not even read', async () => {
    const orders = await ctx.site({ scopes: ['website.orders'] });
    missingScope(await orders.call({ method: 'GET', url: PRODUCTS }));
    missingScope(await orders.call({ method: 'GET', url: `${PRODUCTS}/${MISSING_ID}` }));
  });
});
