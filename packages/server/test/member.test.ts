import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOwner } from '../src/sites/owners.service.ts';
import { createWebsite } from '../src/sites/websites.service.ts';
import { apiCall, grantTokens, registerApp, type App } from './helpers/oauth.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** `GET /1.0/authorization/member` (platform-surface 2.4): the owner behind an OAuth token. */

let ctx: TestContext;
let app: App;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  app = await registerApp(ctx);
});
after(() => ctx.close());

const MEMBER = '/1.0/authorization/member';

async function ownerWithSite(names: { firstName?: string; lastName?: string }, email: string) {
  const { ownerId } = await createOwner(ctx, { email, password: 'correct horse battery', ...names });
  const { websiteId } = await createWebsite(ctx, { ownerEmail: email, title: 'Member Shop' });
  return { ownerId, websiteId };
}

describe('the member of an OAuth token', () => {
  test('is the owner who granted it: id, names and email, whatever the scopes', async () => {
    const email = 'grace@example.com';
    const { ownerId, websiteId } = await ownerWithSite({ firstName: ' Grace ', lastName: 'Hopper' }, email);
    const tokens = await grantTokens(ctx, app, websiteId, { scopes: ['website.products.read'] });
    const res = await apiCall(ctx, tokens.access_token, { url: MEMBER });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { id: ownerId, firstName: 'Grace', lastName: 'Hopper', email });
  });

  test('an owner who gave no names has empty ones', async () => {
    const email = 'nameless@example.com';
    const { ownerId, websiteId } = await ownerWithSite({}, email);
    const tokens = await grantTokens(ctx, app, websiteId);
    const res = await apiCall(ctx, tokens.access_token, { url: MEMBER });
    assert.deepEqual(res.json(), { id: ownerId, firstName: '', lastName: '', email });
  });

  test('an API key belongs to no member: 401 OAUTH_TOKEN_REQUIRED; no credential: 401', async () => {
    const site = await ctx.site();
    assertError(
      await site.call({ method: 'GET', url: MEMBER }),
      401,
      'AUTHORIZATION_ERROR',
      'OAUTH_TOKEN_REQUIRED',
    );
    const anonymous = await ctx.app.inject({
      method: 'GET',
      url: MEMBER,
      headers: { 'user-agent': 'tests/1.0' },
    });
    assert.equal(anonymous.statusCode, 401);
  });

  test('names longer than 100 characters are refused when the owner is created, and nothing is stored', async () => {
    const email = 'long@example.com';
    await assert.rejects(
      createOwner(ctx, { email, password: 'correct horse battery', lastName: 'x'.repeat(101) }),
      /lastName: at most 100 characters/,
    );
    const stored = await ctx.db
      .selectFrom('owners')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    assert.equal(stored, undefined);
  });
});
