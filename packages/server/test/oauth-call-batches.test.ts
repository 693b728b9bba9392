import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { tokenLookups } from '../src/oauth/access-tokens.ts';
import { codeExchanges, type RedeemCall } from '../src/oauth/grants/authorization-code.ts';
import { newPair } from '../src/oauth/tokens.ts';
import { digest } from '../src/shared/secrets.ts';
import {
  allow,
  apiCall,
  grantTokens,
  oauthTestApp,
  recordingPool,
  refresh,
  registerApp,
  REDIRECT_URI,
  type App,
} from './helpers/oauth.ts';
import type { Site, TestContext } from './helpers/test-app.ts';

/**
 * Code exchanges, and lookups of access tokens the cache does not hold, that arrive together go
 * to the database as one statement and one commit (db/call-batches.ts), as refreshes do
 * (oauth-refresh-batches.test.ts); each is still answered by its own rule.
 */
let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

/** The call the token endpoint makes for `code`, and the access token of the pair it would store. */
function exchangeOf(code: string, clientId = app.clientId): { call: RedeemCall; accessToken: string } {
  const now = ctx.clock.now();
  const { response, access, refresh: next } = newPair(ctx, now, true);
  const call: RedeemCall = {
    presented: digest(code),
    clientId,
    moment: now,
    redirectUri: REDIRECT_URI,
    verifierS256: null,
    refreshId: next!.id,
    refreshDigest: next!.digest,
    refreshExpires: next!.expiresAt,
    accessDigest: access.digest,
    accessExpires: access.expiresAt,
    auditId: ctx.ids.objectId(),
  };
  return { call, accessToken: response.access_token };
}

const revokedReason = async (grantOfCode: string) =>
  (
    await sql<{ revoked_reason: string | null }>`
      SELECT revoked_reason FROM oauth_grants WHERE code_digest = ${digest(grantOfCode)}`.execute(ctx.db)
  ).rows[0]?.revoked_reason;

describe('code exchanges sent together', () => {
  test("go in one statement: a good code, the same code again (a replay), another client's code, an unknown one", async () => {
    const other = await registerApp(ctx);
    const [good, twice, othersCode] = [
      await allow(ctx, app, site.websiteId),
      await allow(ctx, app, site.websiteId),
      await allow(ctx, other, site.websiteId),
    ];
    const { pool, statements } = recordingPool(ctx);
    const exchanges = codeExchanges(pool);
    const first = exchangeOf(good);
    const outcomes = await Promise.all([
      exchanges.call(first.call),
      exchanges.call(exchangeOf(twice).call),
      exchanges.call(exchangeOf(twice).call),
      exchanges.call(exchangeOf(othersCode).call),
      exchanges.call(exchangeOf('emp_code_not-a-code').call),
    ]);
    assert.equal(statements.length, 1, 'one statement for the five');
    assert.match(statements[0]!, /oauth_redeem_code/);
    assert.deepEqual(outcomes, ['offline', 'offline', 'replay', 'invalid', 'invalid']);
    assert.equal((await apiCall(ctx, first.accessToken)).statusCode, 200, 'the good pair works');
    assert.equal(await revokedReason(good), null);
    assert.equal(
      await revokedReason(twice),
      'code_replay',
      'the second presentation revoked the grant (AC-3)',
    );
    // Another client's code is burned all the same (AC-5).
    assert.deepEqual(
      await codeExchanges(ctx.api.pool).call(exchangeOf(othersCode, other.clientId).call),
      'replay',
    );
  });
});

describe('access tokens looked up together', () => {
  test('go in one statement; each first call confirms its own pair, an unknown token finds nothing', async () => {
    const families = [
      await grantTokens(ctx, app, site.websiteId),
      await grantTokens(ctx, app, site.websiteId),
    ];
    const children = [];
    for (const tokens of families) children.push((await refresh(ctx, app, tokens.refresh_token!)).json());
    const { pool, statements } = recordingPool(ctx);
    const lookups = tokenLookups(pool);
    const moment = ctx.clock.now();
    const rows = await Promise.all(
      [...children.map((c) => c.access_token as string), 'emp_at_not-a-token'].map((token) =>
        lookups.call({ presented: digest(token), moment }),
      ),
    );
    assert.equal(statements.length, 1, 'one statement for the three');
    assert.match(statements[0]!, /oauth_authenticate/);
    assert.equal(rows[2], undefined);
    for (const [i, child] of children.entries()) {
      assert.equal(rows[i]?.client_id, app.clientId);
      const { confirmed } = (
        await sql<{ confirmed: boolean }>`
          SELECT confirmed_at IS NOT NULL AS confirmed FROM oauth_refresh_tokens
            WHERE token_digest = ${digest(child.refresh_token)}`.execute(ctx.db)
      ).rows[0]!;
      assert.equal(confirmed, true, `pair ${i} confirmed by its first call`);
      // Its parent is now a replay (RT-8): presenting it revokes the family.
      assert.equal((await refresh(ctx, app, families[i]!.refresh_token!)).statusCode, 400);
    }
  });
});
