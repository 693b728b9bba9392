import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ValidationError } from '../src/shared/errors.ts';
import {
  authenticateClient,
  createClient,
  rotateClientSecret,
  type ClientInput,
} from '../src/oauth/clients.service.ts';
import { createOwner } from '../src/sites/owners.service.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let ownerId: string;
const ownerEmail = 'developer@example.com';
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  ({ ownerId } = await createOwner(ctx, { email: ownerEmail, password: 'a long enough password' }));
});
after(() => ctx.close());

const register = (input: Partial<ClientInput> = {}) =>
  createClient(ctx, {
    ownerEmail,
    name: 'Inventory Sync',
    redirectUris: ['https://app.example.com/callback'],
    ...input,
  });

describe('client registration', () => {
  test('client secrets: the secret is 256 random bits with the emp_cs_ prefix, shown once and stored as a digest', async () => {
    const { clientId, clientSecret } = await register();
    assert.match(clientId, /^[0-9a-f]{24}$/, 'alphanumeric client id');
    assert.match(clientSecret, /^emp_cs_[A-Za-z0-9_-]{43}$/);
    const row = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(clientSecret.slice(7)), 'no usable secret in the database');
    assert.equal(row.secret_digest.length, 32);
  });

  test('redirect URIs are kept exactly as registered, duplicates once', async () => {
    const uris = ['https://app.example.com/cb?from=emporium', 'http://127.0.0.1:8765/cb', 'http://[::1]/cb'];
    const { clientId } = await register({ redirectUris: [...uris, uris[0]!] });
    const row = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.redirect_uris, uris);
  });

  test('AZ-2 a redirect URI with a fragment, plain http off loopback, credentials or no scheme is refused', async () => {
    const refused: [string, RegExp][] = [
      ['https://app.example.com/cb#done', /fragment/],
      ['https://app.example.com/cb#', /fragment/],
      ['http://app.example.com/cb', /https/],
      ['http://10.0.0.5/cb', /https/],
      ['ftp://app.example.com/cb', /https/],
      ['https://user:pw@app.example.com/cb', /user name/],
      ['https://user@app.example.com/cb', /user name/],
      ['/relative/cb', /absolute/],
      [`https://app.example.com/${'a'.repeat(2000)}`, /2000/],
    ];
    const before = await ctx.db.selectFrom('oauth_clients').select('id').execute();
    for (const [uri, message] of refused) {
      await assert.rejects(register({ redirectUris: [uri] }), (error: Error) => {
        assert.ok(error instanceof ValidationError, uri);
        assert.match(error.message, message, uri);
        return true;
      });
    }
    const afterwards = await ctx.db.selectFrom('oauth_clients').select('id').execute();
    assert.equal(afterwards.length, before.length, 'nothing registered');
  });

  test('a name of 1 to 100 characters, 1 to 10 redirect URIs, https initiate, terms and privacy URLs', async () => {
    await register({ name: 'x'.repeat(100) });
    await assert.rejects(register({ name: 'x'.repeat(101) }), /name: 1 to 100/);
    await assert.rejects(register({ name: '   ' }), /name: 1 to 100/);
    await assert.rejects(register({ redirectUris: [] }), /1 to 10 redirect URIs/);
    const ten = Array.from({ length: 10 }, (_, i) => `https://app.example.com/cb${i}`);
    await register({ redirectUris: ten });
    await assert.rejects(register({ redirectUris: [...ten, 'https://app.example.com/cb10'] }), /1 to 10/);
    await assert.rejects(
      register({ initiateUrl: 'http://app.example.com/connect' }),
      /initiateUrl: must use https/,
    );
    await assert.rejects(register({ termsUrl: 'javascript:alert(1)' }), /termsUrl: must use https/);
    const { clientId } = await register({
      initiateUrl: 'https://app.example.com/connect',
      privacyUrl: 'https://app.example.com/privacy',
    });
    const row = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    assert.equal(row.initiate_url, 'https://app.example.com/connect');
    assert.equal(row.privacy_url, 'https://app.example.com/privacy');
    assert.equal(row.terms_url, null);
  });

  test('an unknown owner is refused', async () => {
    await assert.rejects(
      register({ ownerEmail: 'nobody@example.com' } as Partial<ClientInput>),
      /owner not found/,
    );
  });
});

describe('client authentication', () => {
  test('the right secret authenticates; a wrong secret and an unknown id are both refused', async () => {
    const { clientId, clientSecret } = await register();
    assert.equal((await authenticateClient(ctx, clientId, clientSecret))?.id, clientId);
    assert.equal(await authenticateClient(ctx, clientId, `${clientSecret}x`), undefined);
    assert.equal(await authenticateClient(ctx, clientId, ''), undefined);
    assert.equal(await authenticateClient(ctx, 'ffffffffffffffffffffffff', clientSecret), undefined);
    assert.equal(await authenticateClient(ctx, 'ffffffffffffffffffffffff', ''), undefined);
  });

  test('a rotated secret replaces the old one at once; only the owner can rotate', async () => {
    const { clientId, clientSecret } = await register();
    const { ownerId: stranger } = await createOwner(ctx, {
      email: 'stranger@example.com',
      password: 'another long password',
    });
    await assert.rejects(rotateClientSecret(ctx, stranger, clientId), /client not found/);
    assert.ok(await authenticateClient(ctx, clientId, clientSecret), 'a refused rotation changes nothing');
    const { clientSecret: rotated } = await rotateClientSecret(ctx, ownerId, clientId);
    assert.notEqual(rotated, clientSecret);
    assert.equal(await authenticateClient(ctx, clientId, clientSecret), undefined);
    assert.equal((await authenticateClient(ctx, clientId, rotated))?.id, clientId);
  });
});
