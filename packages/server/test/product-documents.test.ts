import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductDocuments } from '../src/catalog/product-documents.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

describe('cached product documents', () => {
  let first: TestContext;
  let second: TestContext;
  let site: Site;
  before(async () => {
    first = await testApp({ logLevel: 'silent' });
    second = await testApp({ logLevel: 'silent', databaseUrl: first.url });
    site = await first.site();
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  const read = (ctx: TestContext, url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: site.headers });

  test('a change made through another instance is seen at once, in get and in list', async () => {
    const product = await createProduct(site, physical(site, { name: 'Before' }));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).json().products[0].name, 'Before'); // now cached on the first
    const update = await second.app.inject({
      method: 'POST',
      url,
      headers: site.headers,
      payload: { name: 'After' },
    });
    assert.equal(update.statusCode, 200);
    assert.equal((await read(first, url)).json().products[0].name, 'After');
    const names = (await read(first, '/1.1/commerce/products'))
      .json()
      .products.map((p: { name: string }) => p.name);
    assert.ok(names.includes('After') && !names.includes('Before'));
  });

  test('a product deleted through another instance is gone at once', async () => {
    const product = await createProduct(site, physical(site));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).statusCode, 200);
    assert.equal((await second.app.inject({ method: 'DELETE', url, headers: site.headers })).statusCode, 204);
    assert.equal((await read(first, url)).statusCode, 404);
  });

  test('two updates within one millisecond still give two versions', async () => {
    const product = await createProduct(site, physical(site, { name: 'v0' }));
    const url = `/1.1/commerce/products/${product.id}`;
    const frozen = { now: () => new Date('2026-06-01T00:00:00.000Z') };
    const at = first.clock.now.bind(first.clock);
    first.clock.now = frozen.now;
    try {
      const one = (await site.call({ method: 'POST', url, payload: { name: 'v1' } })).json();
      assert.equal((await read(first, url)).json().products[0].name, 'v1');
      const two = (await site.call({ method: 'POST', url, payload: { name: 'v2' } })).json();
      assert.ok(Date.parse(two.modifiedOn) > Date.parse(one.modifiedOn));
      assert.equal((await read(first, url)).json().products[0].name, 'v2');
    } finally {
      first.clock.now = at;
    }
  });
});

describe('ProductDocuments', () => {
  test('serves a document only at its version, and never an older one over a newer', () => {
    const cache = new ProductDocuments(1000);
    cache.set('a', 2, '{"v":2}');
    assert.equal(cache.get('a', 2), '{"v":2}');
    assert.equal(cache.get('a', 1), undefined);
    cache.set('a', 1, '{"v":1}');
    assert.equal(cache.get('a', 2), '{"v":2}');
  });

  test('stays within its byte budget, evicting the least recently used', () => {
    const cache = new ProductDocuments(30);
    cache.set('a', 1, 'x'.repeat(10));
    cache.set('b', 1, 'x'.repeat(10));
    cache.set('c', 1, 'x'.repeat(10));
    assert.ok(cache.get('a', 1)); // a is now the most recent
    cache.set('d', 1, 'x'.repeat(10));
    assert.equal(cache.get('b', 1), undefined);
    assert.ok(cache.get('a', 1) && cache.get('c', 1) && cache.get('d', 1));
  });
});
