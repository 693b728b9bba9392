import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../src/shared/clock.ts';
import { revokeApiKey } from '../src/sites/api-keys.service.ts';
import { digest } from '../src/shared/secrets.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { noticed, testApp, versionsNoticed, type Site, type TestContext } from './helpers/test-app.ts';

describe('cached products, list pages and credentials across instances', () => {
  let first: TestContext;
  let second: TestContext;
  let unfed: TestContext;
  let site: Site;
  before(async () => {
    first = await testApp({ logLevel: 'silent' });
    second = await testApp({ logLevel: 'silent', databaseUrl: first.url });
    unfed = await testApp({ logLevel: 'silent', databaseUrl: first.url, changeFeed: false });
    site = await first.site();
  });
  after(async () => {
    await unfed.close();
    await second.close();
    await first.close();
  });

  const read = (ctx: TestContext, url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: site.headers });
  const rename = (ctx: TestContext, url: string, name: string) =>
    ctx.app.inject({ method: 'POST', url, headers: site.headers, payload: { name } });

  test('a change made through another instance is seen as soon as its notice arrives, in get and in list', async () => {
    const product = await createProduct(site, physical(site, { name: 'Before' }));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).json().products[0].name, 'Before'); // now cached on the first
    // The creation's own notice may still be on its way: wait for the rename's version.
    const notices = versionsNoticed(first.changes, 'product', product.id);
    const renamed = await rename(second, url, 'After');
    assert.equal(renamed.statusCode, 200);
    await notices.until(String(Date.parse(renamed.json().modifiedOn)));
    assert.equal((await read(first, url)).json().products[0].name, 'After');
    const names = (await read(first, '/1.1/commerce/products'))
      .json()
      .products.map((p: { name: string }) => p.name);
    assert.ok(names.includes('After') && !names.includes('Before'));
  });

  const listed = async (ctx: TestContext) =>
    (await read(ctx, '/1.1/commerce/products')).json().products.map((p: { name: string }) => p.name);

  test('a product created or deleted through another instance is listed, or not, once the notice arrives', async () => {
    const before = await listed(first); // the page is now cached on the first
    const created = noticed(first.changes, 'catalog', site.websiteId);
    const product = await createProduct(site, physical(site, { name: 'Created elsewhere' }));
    await created;
    assert.deepEqual(await listed(first), [...before, 'Created elsewhere']);
    const deleted = noticed(first.changes, 'catalog', site.websiteId);
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await second.app.inject({ method: 'DELETE', url, headers: site.headers })).statusCode, 204);
    await deleted;
    assert.deepEqual(await listed(first), before);
  });

  test('the instance that made a change shows it at once, notice or not', async () => {
    const product = await createProduct(site, physical(site, { name: 'Before' }));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).json().products[0].name, 'Before');
    assert.equal((await rename(first, url, 'After')).json().name, 'After');
    assert.equal((await read(first, url)).json().products[0].name, 'After');
  });

  test('without a change feed every read asks the database, so a change elsewhere is seen at once', async () => {
    const product = await createProduct(site, physical(site, { name: 'Before' }));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(unfed, url)).json().products[0].name, 'Before');
    assert.equal((await rename(second, url, 'After')).statusCode, 200);
    assert.equal((await read(unfed, url)).json().products[0].name, 'After');
  });

  test('a product deleted through another instance is gone once the notice arrives', async () => {
    const product = await createProduct(site, physical(site));
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).statusCode, 200);
    // The creation's own notice may still be on its way: wait for the deletion's.
    const notices = versionsNoticed(first.changes, 'product', product.id);
    assert.equal((await second.app.inject({ method: 'DELETE', url, headers: site.headers })).statusCode, 204);
    await notices.until('gone');
    assert.equal((await read(first, url)).statusCode, 404);
  });

  test('a key revoked by another process is refused once the notice arrives', async () => {
    const other = await first.site();
    const call = () =>
      first.app.inject({ method: 'GET', url: '/1.1/commerce/products', headers: other.headers });
    assert.equal((await call()).statusCode, 200); // the key is now cached
    const notice = noticed(first.changes, 'api_key', digest(other.apiKey).toString('hex'));
    assert.equal(await revokeApiKey({ db: second.db, clock: systemClock }, other.apiKey), true);
    await notice;
    assert.equal((await call()).statusCode, 401);
  });

  test('after the feed reconnects, nothing cached before is trusted: a change it missed is seen', async () => {
    // The creation's own notice must have arrived first, or it would empty the page cached below.
    const created = noticed(first.changes, 'catalog', site.websiteId);
    const product = await createProduct(site, physical(site, { name: 'Before' }));
    await created;
    const url = `/1.1/commerce/products/${product.id}`;
    assert.equal((await read(first, url)).json().products[0].name, 'Before');
    assert.ok((await listed(first)).includes('Before')); // the page is now cached
    // A change no trigger announces (replica mode skips triggers), as if its notice were lost.
    await first.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`UPDATE products SET name = 'Unannounced', modified_on = modified_on + interval '1 second'
                WHERE id = ${product.id}`.execute(trx);
    });
    assert.equal((await read(first, url)).json().products[0].name, 'Before', 'served from memory while live');
    assert.ok((await listed(first)).includes('Before'), 'the list page too');
    const back = once(first.changes!, 'live');
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE application_name = 'emporium change feed' AND datname = current_database()`.execute(
      first.db,
    );
    await back;
    assert.equal((await read(first, url)).json().products[0].name, 'Unannounced');
    assert.ok((await listed(first)).includes('Unannounced'));
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
