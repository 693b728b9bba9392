import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseKeyScopes } from '../src/sites/api-key-scopes.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * The platform's API key permission names (platform-surface 0.7: CONTACT, CONTACT_READONLY,
 * DISCOUNTS, DISCOUNTS_READONLY) are taken wherever a key's scopes are given, and stored as the
 * OAuth scopes they stand for.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const storedScopes = async (keyId: string) =>
  (await ctx.db.selectFrom('api_keys').select('scopes').where('id', '=', keyId).executeTakeFirstOrThrow())
    .scopes;

describe('parseKeyScopes', () => {
  test('platform names in any case stand for their scopes; commas or spaces separate; repeats collapse', () => {
    assert.deepEqual(parseKeyScopes('CONTACT, contact_readonly DISCOUNTS,DISCOUNTS_READONLY'), {
      scopes: ['website.contacts', 'website.contacts.read', 'website.discounts', 'website.discounts.read'],
    });
    assert.deepEqual(parseKeyScopes(' website.orders ,CONTACT,\nwebsite.contacts,, '), {
      scopes: ['website.orders', 'website.contacts'],
    });
  });

  test('an unknown name is named back, a guessed platform name included; an empty list is refused', () => {
    assert.deepEqual(parseKeyScopes('CONTACT,ORDERS_READONLY'), { invalid: 'ORDERS_READONLY' });
    assert.deepEqual(parseKeyScopes('website.everything'), { invalid: 'website.everything' });
    assert.deepEqual(parseKeyScopes(' , '), { invalid: '' });
    assert.deepEqual(parseKeyScopes(''), { invalid: '' });
  });
});

describe('createApiKey (the CLI and the owner page call it)', () => {
  test('stores the OAuth names, and the key reads what they allow and nothing else', async () => {
    const { id, apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes: 'CONTACT_READONLY' });
    assert.deepEqual(await storedScopes(id), ['website.contacts.read']);
    const headers = { authorization: `Bearer ${apiKey}`, 'user-agent': 'tests/1.0' };
    const summaries = await ctx.app.inject({
      method: 'POST',
      url: '/v1/analytics/transaction-summaries',
      headers,
      payload: { contactIds: ['0'.repeat(24)], groupBy: 'contactId' },
    });
    assert.equal(summaries.statusCode, 200, summaries.body);
    const products = await ctx.app.inject({ method: 'GET', url: '/1.1/commerce/products', headers });
    assert.equal(products.statusCode, 403);
  });

  test('an unknown name is a 400 that lists the names taken, and no key is made', async () => {
    const existing = await ctx.db.selectFrom('api_keys').select('id').execute();
    await assert.rejects(createApiKey(ctx, { websiteId: site.websiteId, scopes: 'CONTACT, PRODUCTS' }), {
      status: 400,
      message:
        /^scopes: unknown scope "PRODUCTS"; .*CONTACT, CONTACT_READONLY, DISCOUNTS, DISCOUNTS_READONLY/,
    });
    await assert.rejects(createApiKey(ctx, { websiteId: site.websiteId, scopes: '' }), {
      status: 400,
      message: 'scopes: at least one scope',
    });
    assert.equal((await ctx.db.selectFrom('api_keys').select('id').execute()).length, existing.length);
  });
});

describe('the owner API key page', () => {
  test('pasted platform names join the ticked scopes; an unknown one is shown and makes no key', async () => {
    const browser = await signedInOwner(ctx, site);
    const page = await browser.get(`/sites/${site.websiteId}/keys`);
    assert.match(page.body, /name="scopeList"/);
    assert.match(page.body, /<code>CONTACT_READONLY<\/code>/);
    const send = (form: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/sites/${site.websiteId}/keys`,
        headers: { cookie: browser.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `csrf=${encodeURIComponent(browser.csrf)}&name=Contacts&${form}`,
      });
    const created = await send(
      `scopes=website.products.read&scopeList=${encodeURIComponent('CONTACT, DISCOUNTS_READONLY')}`,
    );
    assert.equal(created.statusCode, 201, created.body);
    const list = await browser.get(`/sites/${site.websiteId}/keys`);
    assert.match(list.body, /website\.products\.read, website\.contacts, website\.discounts\.read/);

    const keys = async () => (await ctx.db.selectFrom('api_keys').select('id').execute()).length;
    const count = await keys();
    const refused = await send(`scopeList=${encodeURIComponent('CONTACT_READ')}`);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /unknown scope &quot;CONTACT_READ&quot;/);
    assert.equal(await keys(), count);
    const blank = await send('scopeList=+');
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /Choose at least one scope\./);
  });
});
