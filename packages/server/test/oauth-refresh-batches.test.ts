import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { CallBatches } from '../src/db/call-batches.ts';
import { sendRefreshes, type RefreshCall } from '../src/oauth/grants/refresh-batches.ts';
import { MAX_UNCONFIRMED } from '../src/oauth/grants/refresh-token.ts';
import { newPair } from '../src/oauth/tokens.ts';
import { digest } from '../src/shared/secrets.ts';
import { apiCall, grantTokens, oauthTestApp, recordingPool, refresh, type App } from './helpers/oauth.ts';
import type { Site, TestContext } from './helpers/test-app.ts';
import { until } from './helpers/webhooks.ts';

/**
 * Refreshes that arrive together are sent in one statement and one transaction
 * (db/call-batches.ts, oauth/grants/refresh-batches.ts); each keeps its own outcome, and a
 * deadlock between two processes' batches costs nothing but a second try.
 */
let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

/** Refreshes batched as the token endpoint batches them, over `pool`. */
const refreshBatches = (pool: typeof ctx.api.pool) =>
  new CallBatches((calls: RefreshCall[]) => sendRefreshes(pool, MAX_UNCONFIRMED, calls));

const connect = async () => grantTokens(ctx, app, site.websiteId);

/** The call a refresh of `refreshToken` makes, and the access token of the pair it would store. */
function callFor(refreshToken: string): { call: RefreshCall; accessToken: string } {
  const now = ctx.clock.now();
  const { response, access, refresh: next } = newPair(ctx, now, true);
  const call: RefreshCall = {
    presented: digest(refreshToken),
    clientId: app.clientId,
    moment: now,
    refreshId: next!.id,
    refreshDigest: next!.digest,
    refreshExpires: next!.expiresAt,
    accessDigest: access.digest,
    accessExpires: access.expiresAt,
    auditId: ctx.ids.objectId(),
    ip: '127.0.0.1',
  };
  return { call, accessToken: response.access_token };
}

const grantOf = async (accessToken: string) =>
  (
    await sql<{ revoked_reason: string | null }>`
      SELECT g.revoked_reason FROM oauth_grants g
        JOIN oauth_access_tokens a ON a.grant_id = g.id
        WHERE a.token_digest = ${digest(accessToken)}`.execute(ctx.db)
  ).rows[0];

describe('refreshes sent together', () => {
  test('go in one round trip, and each is answered by its own rule: ok, replay, unknown', async () => {
    const good = await connect();
    const replayed = await connect();
    // A confirmed child makes its parent a replay when presented again (RT-8).
    const child = (await refresh(ctx, app, replayed.refresh_token!)).json();
    assert.equal((await apiCall(ctx, child.access_token)).statusCode, 200);

    const { pool: counting, statements } = recordingPool(ctx);
    const batches = refreshBatches(counting);
    const fresh = callFor(good.refresh_token!);
    const outcomes = await Promise.all([
      batches.call(fresh.call),
      batches.call(callFor(replayed.refresh_token!).call),
      batches.call(callFor('emp_rt_not-a-token').call),
    ]);
    assert.equal(statements.length, 1, 'one statement for the three');
    assert.match(statements[0]!, /oauth_refresh/);
    assert.deepEqual(outcomes, ['ok', 'replay', 'invalid']);
    // The good family's new pair works; only the replayed family's grant is revoked.
    assert.equal((await apiCall(ctx, fresh.accessToken)).statusCode, 200);
    assert.equal((await grantOf(good.access_token))?.revoked_reason, null);
    assert.equal((await grantOf(replayed.access_token))?.revoked_reason, 'refresh_replay');
  });

  test('two refreshes of one token in a batch both store a pair, as two parallel refreshes do (RT-11)', async () => {
    const tokens = await connect();
    const batches = refreshBatches(ctx.api.pool);
    const [first, second] = [callFor(tokens.refresh_token!), callFor(tokens.refresh_token!)];
    assert.deepEqual(await Promise.all([batches.call(first.call), batches.call(second.call)]), ['ok', 'ok']);
    // Using one pair confirms it and retires its sibling, access token included.
    assert.equal((await apiCall(ctx, second.accessToken)).statusCode, 200);
    assert.equal((await apiCall(ctx, first.accessToken)).statusCode, 401);
  });

  test("two processes' batches that deadlock on each other's grants are tried again one by one: every refresh succeeds", async () => {
    const [a, b] = [await connect(), await connect()];
    const grantIds = (
      await sql<{ grant_id: string }>`
        SELECT grant_id FROM oauth_access_tokens
          WHERE token_digest IN (${digest(a.access_token)}, ${digest(b.access_token)})`.execute(ctx.db)
    ).rows;
    assert.equal(grantIds.length, 2);
    const deadlocks = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`.execute(ctx.db)
        ).rows[0]!.n,
      );
    const waiting = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.db)
        ).rows[0]!.n,
      );
    const before = await deadlocks();

    // Another transaction holds A's grant, so that each batch takes its first lock and waits.
    const holder = new pg.Client({ connectionString: ctx.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM oauth_grants g JOIN oauth_access_tokens a ON a.grant_id = g.id
                            WHERE a.token_digest = $1 FOR UPDATE OF g`,
        [digest(a.access_token)],
      );
      const [first, second] = [refreshBatches(ctx.api.pool), refreshBatches(ctx.api.pool)];
      // The first waits for A before taking B; the second takes B, then waits for A behind it.
      const firstDone = Promise.all([
        first.call(callFor(a.refresh_token!).call),
        first.call(callFor(b.refresh_token!).call),
      ]);
      await until(waiting, (n) => n === 1, 'the first batch waiting');
      const secondDone = Promise.all([
        second.call(callFor(b.refresh_token!).call),
        second.call(callFor(a.refresh_token!).call),
      ]);
      await until(waiting, (n) => n === 2, 'the second batch waiting');
      await holder.query('COMMIT');
      assert.deepEqual(await Promise.all([firstDone, secondDone]), [
        ['ok', 'ok'],
        ['ok', 'ok'],
      ]);
    } finally {
      await holder.end();
    }
    assert.equal(await deadlocks(), before + 1, 'PostgreSQL ended one batch');
  });
});
