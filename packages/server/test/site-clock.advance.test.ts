import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { ValidationError, NotFound } from '../src/shared/errors.ts';
import { advanceClock } from '../src/testing/site-clock.ts';
import { freshDatabase } from './helpers/database.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import {
  allow,
  apiCall,
  assertOAuthError,
  grantTokens,
  refresh,
  registerApp,
  REDIRECT_URI,
  tokenRequest,
} from './helpers/oauth.ts';
import { runCli } from './helpers/process.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { connectApp, Receiver, until } from './helpers/webhooks.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let url: string;
let ctx: TestContext;
let receiver: Receiver;
/** The wait before a webhook retry: an hour, so only a clock moved past it sends the retry. */
before(async () => {
  url = await freshDatabase();
  ctx = await testApp({
    databaseUrl: url,
    logLevel: 'silent',
    webhookWorkers: 1,
    webhooks: { retryDelayMs: () => HOUR, timeoutMs: 300 },
  });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

const advance = (websiteId: string, byMs: number) => advanceClock(ctx.api, websiteId, byMs, 'test');

describe('advancing a site’s clock', () => {
  test('an access token expires on its site’s clock, its refresh token still works, and another site’s token is untouched', async () => {
    const app = await registerApp(ctx);
    const moved = await ctx.site();
    const still = await ctx.site();
    const movedTokens = await grantTokens(ctx, app, moved.websiteId, { offline: true });
    const stillTokens = await grantTokens(ctx, app, still.websiteId, { offline: true });
    assert.equal((await apiCall(ctx, movedTokens.access_token)).statusCode, 200);

    const time = await advance(moved.websiteId, 31 * MINUTE);
    assert.equal(time.shiftMs, 31 * MINUTE);

    assert.equal((await apiCall(ctx, movedTokens.access_token)).statusCode, 401);
    assert.equal((await apiCall(ctx, stillTokens.access_token)).statusCode, 200);
    const refreshed = await refresh(ctx, app, movedTokens.refresh_token!);
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assert.equal((await apiCall(ctx, refreshed.json().access_token)).statusCode, 200);
  });

  test('a refresh token expires once its site’s clock passes its seven days', async () => {
    const app = await registerApp(ctx);
    const site = await ctx.site();
    const tokens = await grantTokens(ctx, app, site.websiteId, { offline: true });
    await advance(site.websiteId, 7 * 24 * HOUR + MINUTE);
    assertOAuthError(await refresh(ctx, app, tokens.refresh_token!), 400, 'invalid_grant');
  });

  test('an authorization code not redeemed in its two minutes of site time is refused', async () => {
    const app = await registerApp(ctx);
    const site = await ctx.site();
    const code = await allow(ctx, app, site.websiteId);
    await advance(site.websiteId, 3 * MINUTE);
    const res = await tokenRequest(
      ctx,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
      { authorization: app.authorization },
    );
    assertOAuthError(res, 400, 'invalid_grant');
  });

  test('the retry of a failed notification is sent once the site’s clock passes its time, not before', async () => {
    const app = await connectApp(ctx, ['website.products']);
    const sub = await app.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: receiver.url,
      topics: ['product.create'],
    });
    assert.equal(sub.statusCode, 201, sub.body);
    const seen = receiver.received.length;
    receiver.answer(500);
    await createProduct(app.site, physical(app.site, { variants: [variant('CLOCK-RETRY-1')] }));
    const [first] = (await receiver.got(seen + 1)).slice(seen);
    const id = first!.json.id;
    await until(
      () =>
        ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
      (d) => d.attempts === 1 && d.leased_until === null,
      'the first attempt',
    );

    await advance(app.site.websiteId, 30 * MINUTE);
    const halfway = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(halfway, { attempts: 1, status: 'PENDING' });

    await advance(app.site.websiteId, 31 * MINUTE);
    const [retry] = (await receiver.got(seen + 2)).slice(seen + 1);
    assert.equal(retry!.json.id, id);
    const done = await until(
      () =>
        ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
      (d) => d.status === 'DELIVERED',
      'the retry',
    );
    assert.equal(done.attempts, 2);
  });

  test('a clock moved back, by nothing or for an unknown site is refused and nothing changes', async () => {
    const site = await ctx.site();
    for (const by of [0, -HOUR, 1.5, Number.NaN]) {
      await assert.rejects(advance(site.websiteId, by), ValidationError);
    }
    await assert.rejects(advance('000000000000000000000000', HOUR), NotFound);
    const row = await ctx.db
      .selectFrom('websites')
      .select('clock_shift_ms')
      .where('id', '=', site.websiteId)
      .executeTakeFirstOrThrow();
    assert.equal(row.clock_shift_ms, 0);
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 0);
  });

  test('each move is a security event of the site, with how far and from where', async () => {
    const site = await ctx.site();
    await advance(site.websiteId, 2 * HOUR);
    const events = await ctx.db
      .selectFrom('audit_events')
      .select(['kind', 'detail'])
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.deepEqual(events, [
      {
        kind: 'test_control',
        detail: { action: 'clock.advance', byMs: 2 * HOUR, shiftMs: 2 * HOUR, via: 'test' },
      },
    ]);
  });

  test('another instance on the same database reads the site’s new time from the change feed', async () => {
    const other = await testApp({ databaseUrl: url, logLevel: 'silent' });
    try {
      const site = await ctx.site();
      const heard = once(other.changes!, 'change');
      await advance(site.websiteId, 48 * HOUR);
      await heard;
      assert.equal(other.api.clock.shiftOf(site.websiteId), 48 * HOUR);
    } finally {
      await other.close();
    }
  });
});

describe('emporium clock', () => {
  const cli = (...args: string[]) => runCli(args, { DATABASE_URL: url });

  test('advance --by 48h moves the site’s time and show tells it; the running server hears of it', async () => {
    const site = await ctx.site();
    const heard = once(ctx.changes!, 'change');
    const moved = await cli('clock', 'advance', '--website', site.websiteId, '--by', '1d24h');
    assert.equal(moved.code, 0, moved.stderr);
    const answer = JSON.parse(moved.stdout);
    assert.equal(answer.websiteId, site.websiteId);
    assert.equal(answer.shiftMs, 48 * HOUR);
    assert.equal(answer.shift, '2d');
    await heard;
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 48 * HOUR);

    const shown = await cli('clock', 'show', '--website', site.websiteId);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).shiftMs, 48 * HOUR);
  });

  test('a duration that is not one, or a step back, is refused with the form to use', async () => {
    const site = await ctx.site();
    for (const by of ['-1h', 'soon', '48', '0h']) {
      const res = await cli('clock', 'advance', '--website', site.websiteId, `--by=${by}`);
      assert.equal(res.code, 1, `${by}: ${res.stdout}`);
      assert.match(JSON.parse(res.stdout).error.message, /^by: /);
    }
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 0);
  });
});
