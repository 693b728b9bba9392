import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { TestBrowser } from './helpers/browser.ts';
import { assertOAuthError, basic, tokenRequest } from './helpers/oauth.ts';
import { noticed, testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let owners = 0;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

async function developer() {
  const browser = new TestBrowser(ctx.app);
  await browser.signUp(`dev${++owners}@example.com`);
  await browser.get('/apps');
  return browser;
}

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: '#2271b1' } })
    .png()
    .toBuffer();
const svg = (attributes: string) =>
  Buffer.from(
    `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" ${attributes}><circle r="4"/></svg>`,
  );

const appFields = (browser: TestBrowser, overrides: Record<string, string> = {}) => ({
  csrf: browser.csrf,
  name: 'Label Printer',
  redirectUris: 'https://labels.example.com/callback\nhttp://127.0.0.1:9000/callback',
  initiateUrl: 'https://labels.example.com/connect',
  termsUrl: '',
  privacyUrl: '',
  ...overrides,
});

/** Registers an app from the page; returns its id and secret, read from the page shown once. */
async function register(browser: TestBrowser, icon?: { name: string; type: string; data: Buffer }) {
  const res = await browser.postMultipart('/apps', appFields(browser), icon && { field: 'icon', ...icon });
  assert.equal(res.statusCode, 201, res.body);
  const clientId = /Client id: <code>([0-9a-f]{24})<\/code>/.exec(res.body)![1]!;
  const clientSecret = /emp_cs_[A-Za-z0-9_-]{43}/.exec(res.body)![0];
  return { clientId, clientSecret };
}

/** Whether the token endpoint takes these credentials (a bad code, but not a bad client). */
async function authenticates(clientId: string, secret: string): Promise<boolean> {
  const res = await tokenRequest(
    ctx,
    { code: 'x', redirect_uri: 'x' },
    { authorization: basic(clientId, secret) },
  );
  return res.statusCode === 400;
}

describe('developer apps', () => {
  test('registering shows the client id and secret once, and the secret works at the token endpoint', async () => {
    const browser = await developer();
    const { clientId, clientSecret } = await register(browser, {
      name: 'icon.png',
      type: 'image/png',
      data: await png(64, 64),
    });
    assert.ok(await authenticates(clientId, clientSecret));
    const list = await browser.get('/apps');
    assert.match(list.body, /Label Printer/);
    assert.doesNotMatch(list.body, /emp_cs_/);
    const edit = await browser.get(`/apps/${clientId}`);
    assert.doesNotMatch(edit.body, /emp_cs_/, 'the secret is shown only once');
    assert.match(edit.body, new RegExp(`<img src="/apps/${clientId}/icon"`));
  });

  test('icons: a square PNG or SVG of at most 200 KB, told from the file itself', async () => {
    const browser = await developer();
    const refused: [string, string, Buffer, number, RegExp][] = [
      ['wide.png', 'image/png', await png(64, 32), 400, /must be square, this one is 64x32/],
      ['icon.gif', 'image/gif', await png(64, 64), 400, /\.png or \.svg/],
      ['fake.png', 'image/png', Buffer.from('not a png at all, just text'), 400, /not a PNG/],
      ['big.png', 'image/png', Buffer.alloc(201 * 1024, 1), 413, /at most 200 KB/],
      ['nosize.svg', 'image/svg+xml', svg(''), 400, /no width and height or viewBox/],
      ['wide.svg', 'image/svg+xml', svg('viewBox="0 0 20 10"'), 400, /must be square/],
    ];
    for (const [name, type, data, status, message] of refused) {
      await browser.get('/apps');
      const res = await browser.postMultipart('/apps', appFields(browser), {
        field: 'icon',
        name,
        type,
        data,
      });
      assert.equal(res.statusCode, status, name);
      assert.match(res.body, message);
    }
    const apps = await ctx.db.selectFrom('oauth_clients').select('id').execute();
    await browser.get('/apps');
    const { clientId } = await register(browser, {
      name: 'logo.svg',
      type: 'image/svg+xml',
      data: svg('width="32px" height="32" onload="alert(1)"'),
    });
    assert.equal((await ctx.db.selectFrom('oauth_clients').select('id').execute()).length, apps.length + 1);
    const icon = await ctx.app.inject({ method: 'GET', url: `/apps/${clientId}/icon` });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(String(icon.headers['content-security-policy']), /sandbox/);
    assert.match(String(icon.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(icon.headers['x-content-type-options'], 'nosniff');
  });

  test('everything but the id and secret can be edited; a broken rule changes nothing', async () => {
    const browser = await developer();
    const { clientId } = await register(browser);
    await browser.get(`/apps/${clientId}`);
    const bad = await browser.postMultipart(
      `/apps/${clientId}`,
      appFields(browser, { name: 'Renamed', redirectUris: 'http://labels.example.com/callback' }),
    );
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /must use https/);
    const unchanged = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    assert.equal(unchanged.name, 'Label Printer');
    await browser.get(`/apps/${clientId}`);
    const saved = await browser.postMultipart(
      `/apps/${clientId}`,
      appFields(browser, { name: 'Renamed', redirectUris: 'https://new.example.com/cb', initiateUrl: '' }),
    );
    assert.equal(saved.statusCode, 303, saved.body);
    const row = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    assert.equal(row.name, 'Renamed');
    assert.deepEqual(row.redirect_uris, ['https://new.example.com/cb']);
    assert.equal(row.initiate_url, null);
  });

  test('a new secret is shown once and the old one stops working at once', async () => {
    const browser = await developer();
    const { clientId, clientSecret } = await register(browser);
    assert.ok(await authenticates(clientId, clientSecret)); // and kept in this instance's cache
    await browser.get(`/apps/${clientId}`);
    const rotated = await browser.post(`/apps/${clientId}/secret`, { csrf: browser.csrf });
    assert.equal(rotated.statusCode, 200);
    const next = /emp_cs_[A-Za-z0-9_-]{43}/.exec(rotated.body)![0];
    assert.notEqual(next, clientSecret);
    assertOAuthError(
      await tokenRequest(
        ctx,
        { code: 'x', redirect_uri: 'x' },
        { authorization: basic(clientId, clientSecret) },
      ),
      401,
      'invalid_client',
    );
    assert.ok(await authenticates(clientId, next));
  });

  test('a secret rotated by another instance stops working here once the database announces it', async () => {
    const browser = await developer();
    const { clientId, clientSecret } = await register(browser);
    assert.ok(await authenticates(clientId, clientSecret));
    const announced = noticed(ctx.changes, 'oauth_client', clientId);
    await ctx.db
      .updateTable('oauth_clients')
      .set({ secret_digest: Buffer.alloc(32, 7) })
      .where('id', '=', clientId)
      .execute();
    await announced;
    assert.equal(await authenticates(clientId, clientSecret), false);
  });

  test('GR-2 app registration and secret rotation need the signed-in owner and the CSRF token', async () => {
    const browser = await developer();
    const { clientId, clientSecret } = await register(browser);
    const before = (await ctx.db.selectFrom('oauth_clients').select('id').execute()).length;
    const forged = await browser.postMultipart('/apps', appFields(browser, { csrf: 'forged' }));
    assert.equal(forged.statusCode, 403);
    assert.equal((await browser.post(`/apps/${clientId}/secret`, { csrf: '' })).statusCode, 403);
    const stranger = await developer();
    assert.equal((await stranger.post(`/apps/${clientId}/secret`, { csrf: stranger.csrf })).statusCode, 404);
    assert.equal((await stranger.get(`/apps/${clientId}`)).statusCode, 404);
    const anonymous = new TestBrowser(ctx.app);
    await anonymous.get('/login');
    assert.equal(
      (await anonymous.post(`/apps/${clientId}/secret`, { csrf: anonymous.csrf })).statusCode,
      403,
    );
    assert.equal((await ctx.db.selectFrom('oauth_clients').select('id').execute()).length, before);
    assert.ok(await authenticates(clientId, clientSecret), 'the secret did not change');
  });

  test('extensions: partner apps are listed for a site, and Connect sends the owner to the initiate URL with website_id', async () => {
    const developerBrowser = await developer();
    const { clientId } = await register(developerBrowser);
    await developerBrowser.get('/apps');
    const plain = await developerBrowser.postMultipart(
      '/apps',
      appFields(developerBrowser, { name: 'Not A Partner', initiateUrl: '' }),
    );
    assert.equal(plain.statusCode, 201);
    const owner = await developer();
    const websiteId = await owner.addSite('Connected Shop');
    const list = await owner.get(`/sites/${websiteId}/extensions`);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /Label Printer/);
    assert.doesNotMatch(list.body, /Not A Partner/);
    const connect = await owner.get(`/sites/${websiteId}/extensions/${clientId}/connect`);
    assert.equal(connect.statusCode, 303);
    assert.equal(connect.headers.location, `https://labels.example.com/connect?website_id=${websiteId}`);
    const stranger = await developer();
    assert.equal((await stranger.get(`/sites/${websiteId}/extensions/${clientId}/connect`)).statusCode, 404);
  });
});
