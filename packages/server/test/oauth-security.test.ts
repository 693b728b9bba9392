import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { revokeAccess } from '../src/oauth/revocation.ts';
import { TestBrowser } from './helpers/browser.ts';
import {
  allow,
  grantTokens,
  oauthTestApp,
  redeem,
  REDIRECT_URI,
  refresh,
  tokenRequest,
  type App,
} from './helpers/oauth.ts';
import type { Site, TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

/** Every row of every table of the service's schema, as text: what a database dump holds. */
async function dump(): Promise<string> {
  const tables = await sql<{
    tablename: string;
  }>`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`.execute(ctx.db);
  const rows = [];
  for (const { tablename } of tables.rows) {
    rows.push(await sql`SELECT * FROM ${sql.table(tablename)}`.execute(ctx.db));
  }
  return JSON.stringify(rows, (_key, value) =>
    value && value.type === 'Buffer' ? Buffer.from(value.data).toString('latin1') : value,
  );
}

test('SC-1 secrets are made by the server, shown once and stored as digests: a dump holds no usable secret, code or token', async () => {
  const browser = new TestBrowser(ctx.app);
  await browser.signUp('dump@example.com', 'a password in the dump');
  const code = await allow(ctx, app, site.websiteId);
  const tokens = await redeem(ctx, app, code);
  const pending = await allow(ctx, app, site.websiteId);
  const session = browser.cookies.get('emporium_session')!;
  const text = await dump();
  const secrets = [
    app.clientSecret,
    site.apiKey,
    tokens.access_token,
    tokens.refresh_token!,
    code,
    pending,
    session,
  ];
  for (const secret of secrets)
    assert.ok(!text.includes(secret.replace(/^emp_[a-z]+_/, '')), 'no secret in the dump');
  assert.ok(!text.includes('a password in the dump'));
});

test('SC-2 all randomness comes from node:crypto', () => {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
  const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 20);
  for (const file of files) {
    assert.doesNotMatch(fs.readFileSync(path.join(src, file), 'utf8'), /Math\.random/, file);
  }
});

test('SC-3 tokens and keys carry their type prefix', async () => {
  const tokens = await grantTokens(ctx, app, site.websiteId);
  assert.match(site.apiKey, /^emp_key_/);
  assert.match(app.clientSecret, /^emp_cs_/);
  assert.match(tokens.access_token, /^emp_at_/);
  assert.match(tokens.refresh_token!, /^emp_rt_/);
});

test('AB-6 code replays, refresh replays, revocations and failed sign-ins go to the audit log', async () => {
  const kinds = async () =>
    (await ctx.db.selectFrom('audit_events').select('kind').execute()).map((e) => e.kind);
  const before = await kinds();
  const count = (list: string[], kind: string) => list.filter((k) => k === kind).length;

  const code = await allow(ctx, app, site.websiteId);
  await redeem(ctx, app, code);
  await tokenRequest(ctx, { code, redirect_uri: REDIRECT_URI }, { authorization: app.authorization });
  const family = await grantTokens(ctx, app, site.websiteId);
  const next = (await refresh(ctx, app, family.refresh_token!)).json();
  await refresh(ctx, app, next.refresh_token); // confirms next, retires the first
  await refresh(ctx, app, family.refresh_token!); // a replay
  await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });
  await new TestBrowser(ctx.app).signIn('dump@example.com', 'wrong');

  const after = await kinds();
  for (const kind of ['code_replay', 'refresh_replay', 'revocation', 'login_failed', 'grant']) {
    assert.ok(count(after, kind) > count(before, kind), `a ${kind} event`);
  }
});
