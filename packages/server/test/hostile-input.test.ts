import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProduct, physical } from './helpers/factories.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Malformed requests get a 400 in the documented body and change nothing: no request, however
 * malformed, reaches the database with text it cannot hold, or reaches SQL it cannot run.
 */
let ctx: TestContext;
let site: Site;
let productId: string;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
  productId = (await createProduct(site, physical(site, { name: 'Plain' }))).id;
});
after(() => ctx.close());

const invalid = (
  res: { statusCode: number; json(): unknown },
  message: RegExp,
  subtype: string | null = 'INVALID_ARGUMENT',
) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

describe('the NUL character', () => {
  test('in a path id, a query parameter, a JSON value or a JSON key: 400 naming where, nothing written', async () => {
    invalid(
      await site.call({ method: 'GET', url: `/1.1/commerce/products/${productId}%00` }),
      /^productIdCsvs: must not contain the NUL/,
    );
    invalid(
      await site.call({ method: 'GET', url: '/1.1/commerce/products?query=a%00b' }),
      /^query: must not contain the NUL/,
    );
    const named = await site.call({
      method: 'POST',
      url: '/1.1/commerce/products',
      payload: physical(site, { name: 'a\u0000b' }),
    });
    invalid(named, /^name: must not contain the NUL/);
    const keyed = physical(site, {
      variantAttributes: ['Size'],
      variants: [
        {
          sku: 'NUL-1',
          attributes: { 'Si\u0000ze': 'S' },
          pricing: { basePrice: { currency: 'USD', value: '1.00' } },
        },
      ],
    });
    invalid(
      await site.call({ method: 'POST', url: '/1.1/commerce/products', payload: keyed }),
      /^variants\[0\]\.attributes\.Si.ze: must not/,
    );
    const update = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${productId}`,
      payload: { tags: ['ok', 'n\u0000'] },
    });
    invalid(update, /^tags\[1\]: must not contain the NUL/);
    const listed = await site.call({ method: 'GET', url: '/1.1/commerce/products' });
    assert.deepEqual(
      listed.json().products.map((p: { name: string; tags: string[] }) => [p.name, p.tags]),
      [['Plain', []]],
    );
  });

  test('in a public image address, without credentials: 400, not a 500', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/images/0123456789abcdef01234567%00' });
    invalid(res, /^imageId: must not contain the NUL/);
  });

  test('in an uploaded file name: 400', async () => {
    const body = [
      '--XX',
      'Content-Disposition: form-data; name="file"; filename="mug\u0000.jpg"',
      '',
      'xxxx',
      '--XX--',
      '',
    ].join('\r\n');
    const res = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${productId}/images`,
      headers: { 'content-type': 'multipart/form-data; boundary=XX' },
      payload: body,
    });
    invalid(res, /^file\.filename: must not contain the NUL/);
  });

  test('at the token endpoint: invalid_request in its own format', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/1/login/oauth/provider/tokens',
      headers: { 'user-agent': 'tests', authorization: 'Basic eDp5', 'content-type': 'application/json' },
      payload: { grant_type: 'refresh_token', refresh_token: 'emp_rt_\u0000' },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      error: 'invalid_request',
      error_description: 'refresh_token: must not contain the NUL character (U+0000)',
    });
  });
});

describe('list filters and cursors', () => {
  test('an empty type list (type=,) is a 400 naming the parameter', async () => {
    invalid(
      await site.call({ method: 'GET', url: '/1.1/commerce/products?type=,' }),
      /^type: name at least one product type/,
    );
    invalid(await site.call({ method: 'GET', url: '/1.1/commerce/products?type=%2C&type=' }), /^type: /);
  });

  test("each list takes only its own cursors: another list's validly signed cursor is a 400", async () => {
    for (let i = 0; i < 50; i++) await createProduct(site, physical(site, { name: `Filler ${i}` }));
    const products = await site.call({ method: 'GET', url: '/1.1/commerce/products' });
    const inventory = await site.call({ method: 'GET', url: '/1.0/commerce/inventory' });
    const productCursor = products.json().pagination.nextPageCursor as string;
    const inventoryCursor = inventory.json().pagination.nextPageCursor as string;
    assert.ok(productCursor && inventoryCursor, 'both lists have a second page');
    const cases: [string, string][] = [
      ['/1.0/commerce/store_pages', productCursor],
      ['/1.0/commerce/store_pages', inventoryCursor],
      ['/1.0/commerce/inventory', productCursor],
      ['/1.1/commerce/products', inventoryCursor],
    ];
    for (const [list, cursor] of cases) {
      invalid(
        await site.call({ method: 'GET', url: `${list}?cursor=${encodeURIComponent(cursor)}` }),
        /^cursor: not a cursor returned by this API/,
      );
    }
    // The products cursor still works where it was made, under either version of the path.
    const next = await site.call({
      method: 'GET',
      url: `/1.0/commerce/products?cursor=${encodeURIComponent(productCursor)}`,
    });
    assert.equal(next.statusCode, 200);
  });
});

describe('malformed multipart uploads', () => {
  const upload = (contentType: string, payload: string, headers: Record<string, string> = {}) =>
    site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${productId}/images`,
      headers: { 'content-type': contentType, ...headers },
      payload,
    });
  const part = (boundary: string) =>
    [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="mug.jpg"',
      'Content-Type: image/jpeg',
      '',
      'xxxx',
    ].join('\r\n');

  test('no boundary, a 3,000-character boundary, a body cut short: 400, and no image is added', async () => {
    const malformed = /^body: not a well-formed multipart\/form-data body$/;
    invalid(await upload('multipart/form-data', 'xx'), malformed, null);
    const long = 'b'.repeat(3000);
    invalid(
      await upload(`multipart/form-data; boundary=${long}`, `${part(long)}\r\n--${long}--\r\n`),
      malformed,
      null,
    );
    invalid(await upload('multipart/form-data; boundary=XX', part('XX')), malformed, null);
    const product = await site.call({ method: 'GET', url: `/1.1/commerce/products/${productId}` });
    assert.deepEqual(product.json().products[0].images, []);
  });

  test('a body declared larger than the limit is a 413 before any of it is read, and the connection closes', async () => {
    const res = await upload('multipart/form-data; boundary=XX', part('XX'), {
      'content-length': String(1024 ** 3),
    });
    assertError(res, 413, 'INVALID_REQUEST_ERROR', null, /^file: larger than 20 MB/);
    assert.equal(res.headers.connection, 'close');
  });
});

describe('errors of the router', () => {
  test('a bad percent-encoding is a 400 in the documented body that does not echo the path', async () => {
    const res = await site.call({ method: 'GET', url: '/1.1/commerce/products/%zz' });
    invalid(res, /^path: not a valid URL/, null);
    assert.doesNotMatch(res.body, /%zz/);
  });

  test('an 8,000-character id is a 414 in the documented body that does not echo it', async () => {
    const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${'a'.repeat(8000)}` });
    assertError(
      res,
      414,
      'INVALID_REQUEST_ERROR',
      null,
      /^path: a path segment is longer than this API accepts$/,
    );
    assert.doesNotMatch(res.body, /aaaaaaaaaa/);
  });
});
