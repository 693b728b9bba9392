import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sweepExpiredRows } from '../src/jobs/expired-rows.ts';
import { revokeAccess } from '../src/oauth/revocation.ts';
import { TestBrowser } from './helpers/browser.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { allow, apiCall, grantTokens, oauthTestApp, refresh, type App } from './helpers/oauth.ts';
import type { Site, TestContext } from './helpers/test-app.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

const rows = async (
  table: 'oauth_grants' | 'oauth_access_tokens' | 'oauth_refresh_tokens' | 'owner_sessions',
) =>
  Number(
    (
      await ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('the hourly sweep deletes what can no longer be used and keeps every family still in use working', async () => {
  // A family kept alive by a refresh every day for nine days, confirmed each time by a call.
  let live = await grantTokens(ctx, app, site.websiteId);
  // An unredeemed code, a short-lived grant, and a revoked family.
  await allow(ctx, app, site.websiteId);
  const online = await grantTokens(ctx, app, site.websiteId, { offline: false });
  const otherSite = await ctx.site();
  await grantTokens(ctx, app, otherSite.websiteId);
  await revokeAccess(ctx, { websiteId: otherSite.websiteId, clientId: app.clientId });
  const browser = new TestBrowser(ctx.app);
  await browser.signUp('sweep@example.com');

  for (let day = 0; day < 9; day++) {
    ctx.clock.advance(DAY);
    const res = await refresh(ctx, app, live.refresh_token!);
    assert.equal(res.statusCode, 200, res.body);
    live = res.json();
    assert.equal((await apiCall(ctx, live.access_token)).statusCode, 200);
    await sweepExpiredRows(ctx);
  }
  ctx.clock.advance(15 * DAY); // the session too has expired (14 days)
  const refreshed = await refresh(ctx, app, live.refresh_token!);
  assert.equal(refreshed.statusCode, 400, 'the live family has expired by now too');

  const beforeSweep = await rows('oauth_access_tokens');
  const deleted = await sweepExpiredRows(ctx);
  assert.equal(deleted.owner_sessions, 1);
  assert.ok(beforeSweep > 0, `access tokens before the sweep: ${beforeSweep}`);
  assert.equal(await rows('oauth_access_tokens'), 0);
  assert.equal(await rows('oauth_refresh_tokens'), 0);
  assert.equal(await rows('oauth_grants'), 0, 'codes, short-lived and revoked grants and the expired family');
  assert.equal(await rows('owner_sessions'), 0);
  assert.equal((await apiCall(ctx, online.access_token)).statusCode, 401);
});

test('a live family is untouched by the sweep: its newest pair still refreshes and calls', async () => {
  let tokens = await grantTokens(ctx, app, site.websiteId);
  for (let day = 0; day < 10; day++) {
    ctx.clock.advance(DAY);
    tokens = (await refresh(ctx, app, tokens.refresh_token!)).json();
    await sweepExpiredRows(ctx);
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 200, `day ${day}`);
  }
  // Near its expiry, the newest token is refreshed twice and neither pair is confirmed; the sweep
  // after its expiry keeps it, because its siblings are found through it: confirming one pair
  // still retires the other.
  ctx.clock.advance(7 * DAY - HOUR);
  const a = (await refresh(ctx, app, tokens.refresh_token!)).json();
  const b = (await refresh(ctx, app, tokens.refresh_token!)).json();
  ctx.clock.advance(DAY + 2 * HOUR);
  await sweepExpiredRows(ctx);
  assert.equal((await refresh(ctx, app, a.refresh_token)).statusCode, 200);
  assert.equal((await refresh(ctx, app, b.refresh_token)).statusCode, 400);
});

test('the sweep deletes inventory adjustment keys once their 48 hours are over, and only those', async () => {
  const product = await createProduct(site, physical(site, { variants: [variant('SWEEP-1')] }));
  const variantId = product.variants[0].id;
  const adjust = (key: string, quantity: number) =>
    site.call({
      method: 'POST',
      url: '/1.0/commerce/inventory/adjustments',
      headers: { 'idempotency-key': key },
      payload: { incrementOperations: [{ variantId, quantity }] },
    });
  const keys = async () =>
    (await ctx.db.selectFrom('inventory_adjustment_keys').select('key').orderBy('key').execute()).map(
      (r) => r.key,
    );
  assert.equal((await adjust('first', 1)).statusCode, 204);
  ctx.clock.advance(DAY);
  assert.equal((await adjust('second', 1)).statusCode, 204);
  ctx.clock.advance(DAY - 1000);
  assert.equal((await sweepExpiredRows(ctx)).inventory_adjustment_keys, 0);
  assert.deepEqual(await keys(), ['first', 'second']);
  assert.equal((await adjust('first', 2)).statusCode, 400, 'still remembered: another body is refused');

  ctx.clock.advance(1000);
  assert.equal((await sweepExpiredRows(ctx)).inventory_adjustment_keys, 1);
  assert.deepEqual(await keys(), ['second']);
  assert.equal((await adjust('first', 2)).statusCode, 204, 'the key is free again');
  const stock = await site.call({ method: 'GET', url: `/1.0/commerce/inventory/${variantId}` });
  assert.equal(stock.json().inventory[0].quantity, 4);
});

test('deleting a grant or a refresh token takes what hangs on it, as the foreign keys did', async () => {
  const other = await ctx.site();
  const first = await grantTokens(ctx, app, other.websiteId);
  const second = (await refresh(ctx, app, first.refresh_token!)).json();
  const third = (await refresh(ctx, app, second.refresh_token!)).json();
  const grantId = (
    await ctx.db
      .selectFrom('oauth_grants')
      .select('id')
      .where('website_id', '=', other.websiteId)
      .executeTakeFirstOrThrow()
  ).id;
  const family = () =>
    ctx.db
      .selectFrom('oauth_refresh_tokens')
      .select(['id', 'parent_id'])
      .where('grant_id', '=', grantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const accessOf = async (refreshIds: string[]) =>
    (await ctx.db.selectFrom('oauth_access_tokens').select('refresh_id').execute())
      .map((r) => r.refresh_id)
      .filter((id) => id !== null && refreshIds.includes(id)).length;
  const [a, b, c] = await family();
  assert.equal(b!.parent_id, a!.id);
  assert.equal(c!.parent_id, b!.id);

  // A refresh token deleted (as the sweep does): its access token goes, its child forgets it.
  await ctx.db.deleteFrom('oauth_refresh_tokens').where('id', '=', b!.id).execute();
  assert.deepEqual(
    (await family()).map((t) => [t.id, t.parent_id]),
    [
      [a!.id, null],
      [c!.id, null],
    ],
  );
  assert.equal(await accessOf([b!.id]), 0);
  assert.equal(await accessOf([a!.id, c!.id]), 2);
  assert.equal((await refresh(ctx, app, third.refresh_token)).statusCode, 200, 'the newest still refreshes');

  // The grant deleted (as deleting its website or app does): every token of it goes.
  await ctx.db.deleteFrom('oauth_grants').where('id', '=', grantId).execute();
  assert.deepEqual(await family(), []);
  assert.equal(
    (
      await ctx.db
        .selectFrom('oauth_access_tokens')
        .select('token_digest')
        .where('grant_id', '=', grantId)
        .execute()
    ).length,
    0,
  );
});
