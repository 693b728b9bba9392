import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { revokeAccess } from '../../../server/src/oauth/revocation.ts';
import { allow, registerApp, REDIRECT_URI, type App } from '../../../server/test/helpers/oauth.ts';
import {
  AuthenticationError,
  Emporium,
  EmporiumOAuth,
  MemoryTokenStore,
  OAuthError,
  PermissionError,
  ReauthorizationRequired,
  SIGNATURE_HEADER,
  verifyWebhook,
  type TokenSet,
} from '../../src/index.ts';
import { startServer, USER_AGENT, type Server } from './server.ts';

/** A webhook endpoint that checks each notification with verifyWebhook: 200 when genuine, 401 when not. */
class Receiver {
  secret = '';
  readonly received: { raw: Buffer; genuine: boolean }[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const genuine = await verifyWebhook(raw, req.headers[SIGNATURE_HEADER] as string, this.secret);
      this.received.push({ raw, genuine });
      res.writeHead(genuine ? 200 : 401).end();
    });
  });
  async start() {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }
  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
  async stop() {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

let server: Server;
let app: App;
let auth: EmporiumOAuth;
let receiver: Receiver;
before(async () => {
  server = await startServer();
  app = await registerApp(server.ctx);
  auth = new EmporiumOAuth({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    redirectUri: REDIRECT_URI,
    authUrl: server.url,
    userAgent: USER_AGENT,
  });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await server.close();
});

/**
 * The whole flow on the real endpoints but the owner's sign-in: the SDK's authorize URL (which the
 * server accepts and records), the owner's Allow (a code, as the consent page issues it), the
 * callback check, and the SDK's code exchange.
 */
async function connect(websiteId = server.site.websiteId): Promise<TokenSet> {
  const request = auth.authorizeUrl({
    scopes: ['website.products', 'website.inventory'],
    offline: true,
    websiteId,
    pkce: true,
  });
  const answer = await fetch(request.url, { redirect: 'manual', headers: { 'user-agent': USER_AGENT } });
  assert.equal(answer.status, 303);
  assert.match(
    answer.headers.get('location')!,
    /^\/login\?next=/,
    'a valid request: on to sign-in and consent',
  );
  const pending = await server.ctx.db
    .selectFrom('oauth_authorization_requests')
    .selectAll()
    .where('state', '=', request.state)
    .executeTakeFirstOrThrow();
  assert.equal(pending.code_challenge, request.codeChallenge);
  assert.equal(pending.offline, true);
  assert.equal(pending.website_id, websiteId);

  const code = await allow(server.ctx, app, websiteId, {
    scopes: ['website.products', 'website.inventory'],
    offline: true,
    codeChallenge: request.codeChallenge!,
  });
  const callback = auth.handleCallback(`${REDIRECT_URI}?code=${code}&state=${request.state}`, {
    state: request.state,
  });
  assert.equal(callback.code, code);
  return auth.exchangeCode(callback.code, { codeVerifier: request.codeVerifier });
}

describe('OAuth against the real token endpoint', () => {
  test('exchangeCode gives a TokenSet that works with the API', async () => {
    const started = Date.now();
    const tokens = await connect();
    assert.match(tokens.accessToken, /^emp_at_/);
    assert.match(tokens.refreshToken!, /^emp_rt_/);
    assert.ok(Math.abs(tokens.accessTokenExpiresAt - (started + 1_800_000)) < 5_000, '30 minutes from now');
    const store = new MemoryTokenStore();
    await store.set('site', tokens);
    const client = new Emporium({
      userAgent: USER_AGENT,
      baseUrl: server.url,
      oauth: { client: auth, store, key: 'site' },
    });
    assert.equal((await client.website.get()).id, server.site.websiteId);
    const owner = await server.ctx.db
      .selectFrom('websites')
      .innerJoin('owners', 'owners.id', 'websites.owner_id')
      .select(['owners.id', 'owners.email'])
      .where('websites.id', '=', server.site.websiteId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(await client.website.member(), {
      id: owner.id,
      firstName: '',
      lastName: '',
      email: owner.email,
    });
    await assert.rejects(server.client.website.member(), AuthenticationError, 'an API key has no member');
  });

  test('a wrong PKCE verifier, and a code used twice, are invalid_grant', async () => {
    const code = await allow(server.ctx, app, server.site.websiteId, {
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    });
    await assert.rejects(
      auth.exchangeCode(code, { codeVerifier: 'x'.repeat(43) }),
      (e: unknown) => e instanceof OAuthError && e.status === 400 && e.error === 'invalid_grant',
    );
    const plain = await allow(server.ctx, app, server.site.websiteId);
    await auth.exchangeCode(plain);
    await assert.rejects(
      auth.exchangeCode(plain),
      (e: unknown) => e instanceof OAuthError && e.error === 'invalid_grant',
    );
  });

  test('a bad client secret is invalid_client (401)', async () => {
    const wrong = new EmporiumOAuth({
      clientId: app.clientId,
      clientSecret: 'emp_cs_wrong',
      redirectUri: REDIRECT_URI,
      authUrl: server.url,
      userAgent: USER_AGENT,
    });
    await assert.rejects(
      wrong.refresh('emp_rt_x'),
      (e: unknown) => e instanceof OAuthError && e.status === 401 && e.error === 'invalid_client',
    );
  });

  test('the client refreshes through the real token endpoint when the token is due, saving the new pair', async () => {
    const site = await server.ctx.site();
    const tokens = await connect(site.websiteId);
    const store = new MemoryTokenStore();
    await store.set(site.websiteId, { ...tokens, accessTokenExpiresAt: Date.now() + 5_000 });
    const client = new Emporium({
      userAgent: USER_AGENT,
      baseUrl: server.url,
      oauth: { client: auth, store, key: site.websiteId },
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => client.website.get()));
    assert.ok(results.every((w) => w.id === site.websiteId));
    const saved = (await store.get(site.websiteId))!;
    assert.notEqual(saved.accessToken, tokens.accessToken);
    assert.notEqual(saved.refreshToken, tokens.refreshToken);
    assert.ok(saved.accessTokenExpiresAt > Date.now() + 1_700_000);
    // The new pair was confirmed by its use: the old refresh token is now a replay.
    await assert.rejects(
      auth.refresh(tokens.refreshToken),
      (e: unknown) => e instanceof OAuthError && e.error === 'invalid_grant',
    );
  });

  test('after the owner revokes the app: 401, one refresh refused, ReauthorizationRequired, tokens kept', async () => {
    const site = await server.ctx.site();
    const store = new MemoryTokenStore();
    await store.set(site.websiteId, await connect(site.websiteId));
    const client = new Emporium({
      userAgent: USER_AGENT,
      baseUrl: server.url,
      oauth: { client: auth, store, key: site.websiteId },
    });
    await client.website.get();
    const kept = await store.get(site.websiteId);
    await revokeAccess(server.ctx, { websiteId: site.websiteId, clientId: app.clientId });
    const error = await client.website.get().catch((e: unknown) => e);
    assert.ok(error instanceof ReauthorizationRequired, String(error));
    assert.ok(error.cause instanceof OAuthError && error.cause.error === 'invalid_grant');
    assert.deepEqual(await store.get(site.websiteId), kept);
  });
});

describe('webhook subscriptions (OAuth tokens only)', () => {
  test('create, list, get, update, test notifications verified by verifyWebhook, rotateSecret, delete', async () => {
    const store = new MemoryTokenStore();
    await store.set('site', await connect());
    const client = new Emporium({
      userAgent: USER_AGENT,
      baseUrl: server.url,
      oauth: { client: auth, store, key: 'site' },
    });
    const { webhookSubscriptions } = client;

    const created = await webhookSubscriptions.create({
      endpointUrl: receiver.url,
      topics: ['extension.uninstall'],
    });
    assert.match(created.secret, /^[0-9a-f]{64}$/);
    receiver.secret = created.secret;

    const listed = await webhookSubscriptions.list();
    assert.deepEqual(
      listed.items.map((s) => s.id),
      [created.id],
    );
    assert.equal('secret' in listed.items[0]!, false);
    assert.equal((await webhookSubscriptions.get(created.id)).endpointUrl, receiver.url);

    const updated = await webhookSubscriptions.update(created.id, {
      topics: ['extension.uninstall', 'product.update'],
    });
    assert.deepEqual(updated.topics, ['extension.uninstall', 'product.update']);

    assert.deepEqual(await webhookSubscriptions.sendTestNotification(created.id, 'product.update'), {
      statusCode: 200,
      error: null,
    });
    assert.equal(receiver.received.at(-1)!.genuine, true);

    const { secret } = await webhookSubscriptions.rotateSecret(created.id);
    assert.notEqual(secret, created.secret);
    // The receiver still holds the old secret: the new signature does not verify with it.
    const refused = await webhookSubscriptions.sendTestNotification(created.id, {
      topic: 'extension.uninstall',
    });
    assert.equal(refused.statusCode, 401);
    assert.equal(await verifyWebhook(receiver.received.at(-1)!.raw, 'f'.repeat(64), secret), false);
    receiver.secret = secret;
    assert.equal(
      (await webhookSubscriptions.sendTestNotification(created.id, 'extension.uninstall')).statusCode,
      200,
    );

    await webhookSubscriptions.delete(created.id);
    assert.deepEqual((await webhookSubscriptions.list()).items, []);
  });

  test('an API key gets 403 OAUTH_TOKEN_REQUIRED as a PermissionError', async () => {
    await assert.rejects(
      server.client.webhookSubscriptions.list(),
      (e: unknown) => e instanceof PermissionError && e.subtype === 'OAUTH_TOKEN_REQUIRED',
    );
  });
});
