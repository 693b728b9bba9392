import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** The owner's page of a site's injected faults (admin/developers/faults.routes.ts). */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const products = (site: Site) => site.call({ method: 'GET', url: '/1.1/commerce/products' });
const rules = (site: Site) =>
  ctx.db.selectFrom('fault_rules').select('id').where('website_id', '=', site.websiteId).execute();

test('the owner adds a fault on the page, the API answers with it, and removing it brings the API back', async () => {
  const site = await ctx.site();
  const owner = await signedInOwner(ctx, site);
  const empty = await owner.get(`/sites/${site.websiteId}/faults`);
  assert.equal(empty.statusCode, 200, empty.body);
  assert.match(empty.body, /No fault is injected/);
  assert.match(
    (await owner.get(`/sites/${site.websiteId}`)).body,
    /href="\/sites\/[0-9a-f]+\/faults">Faults</,
  );

  const added = await owner.post(`/sites/${site.websiteId}/faults`, {
    csrf: owner.csrf,
    match: 'GET /1.1/commerce/products*',
    effect: 'status',
    value: '503',
    probability: '1',
  });
  assert.equal(added.statusCode, 303, added.body);
  const listed = await owner.get(`/sites/${site.websiteId}/faults`);
  assert.match(listed.body, /<code>GET \/1\.1\/commerce\/products\*<\/code>/);
  const faulted = await products(site);
  assert.equal(faulted.statusCode, 503, faulted.body);
  assert.deepEqual(Object.keys(faulted.json()).sort(), [
    'contextId',
    'details',
    'message',
    'subtype',
    'type',
  ]);

  const [rule] = await rules(site);
  const removed = await owner.post(`/sites/${site.websiteId}/faults/${rule!.id}/remove`, {
    csrf: owner.csrf,
  });
  assert.equal(removed.statusCode, 303);
  assert.equal((await products(site)).statusCode, 200);
});

test('a rule with a mistake is shown again with the reason, and nothing is written', async () => {
  const site = await ctx.site();
  const owner = await signedInOwner(ctx, site);
  await owner.get(`/sites/${site.websiteId}/faults`);
  const cases: [Record<string, string>, RegExp][] = [
    [{ match: 'GET /1.1/commerce/products', effect: 'status', value: '418' }, /status: must be one of/],
    [
      { match: 'GET /1.1/commerce/products', effect: 'status', value: '503', probability: '2' },
      /probability/,
    ],
    [{ match: 'GET /nowhere/*', effect: 'reset', value: '' }, /match: the pattern can match no API path/],
  ];
  for (const [form, reason] of cases) {
    const res = await owner.post(`/sites/${site.websiteId}/faults`, { csrf: owner.csrf, ...form });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, reason);
  }
  assert.deepEqual(await rules(site), []);
});

test('another owner cannot see or change a site’s faults, and every change needs the CSRF token', async () => {
  const site = await ctx.site();
  const owner = await signedInOwner(ctx, site);
  await owner.get(`/sites/${site.websiteId}/faults`);
  const rule = { match: '/1.0/commerce/orders*', effect: 'reset', value: '' };
  assert.equal((await owner.post(`/sites/${site.websiteId}/faults`, { csrf: '', ...rule })).statusCode, 403);
  const stranger = await signedInOwner(ctx, await ctx.site());
  assert.equal((await stranger.get(`/sites/${site.websiteId}/faults`)).statusCode, 404);
  await stranger.get('/sites');
  const posted = await stranger.post(`/sites/${site.websiteId}/faults`, { csrf: stranger.csrf, ...rule });
  assert.equal(posted.statusCode, 404);
  assert.deepEqual(await rules(site), []);

  await owner.get(`/sites/${site.websiteId}/faults`);
  assert.equal(
    (await owner.post(`/sites/${site.websiteId}/faults`, { csrf: owner.csrf, ...rule })).statusCode,
    303,
  );
  const cleared = await owner.post(`/sites/${site.websiteId}/faults/clear`, { csrf: owner.csrf });
  assert.equal(cleared.statusCode, 303);
  assert.deepEqual(await rules(site), []);
});
