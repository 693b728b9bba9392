import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { randomIds } from '../../src/ids.ts';
import { createClient } from '../../src/oauth/clients.service.ts';
import { issueCode } from '../../src/oauth/codes.ts';
import { TOKEN_PATH } from '../../src/oauth/token.routes.ts';
import { freshDatabase } from '../helpers/database.ts';
import { basic, REDIRECT_URI } from '../helpers/oauth.ts';
import { request, startServer, type Server } from '../helpers/process.ts';
import { assertSigned, Receiver } from '../helpers/webhooks.ts';

/**
 * The real process killed with SIGKILL while notifications wait to be sent, then started again:
 * every notification must arrive, each with its own id and a valid signature.
 */
let env: Record<string, string>;
let dataDir: string;
let server: Server | undefined;
let receiver: Receiver;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-webhooks-'));
  fs.chmodSync(dataDir, 0o755);
  env = {
    DATA_DIR: dataDir,
    DATABASE_URL: await freshDatabase(),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  receiver = await new Receiver().start();
});

after(async () => {
  if (server && server.child.exitCode === null) await server.stop();
  await receiver.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** An access token of a new app for the demo website, the code issued as the consent page would. */
async function accessToken(baseUrl: string, websiteId: string): Promise<string> {
  const handle = openDatabase(env.DATABASE_URL!, { max: 1 });
  const deps = { db: handle.db, clock: systemClock, ids: randomIds };
  try {
    const client = await createClient(deps, {
      ownerEmail: 'demo@example.com',
      name: 'Crash listener',
      redirectUris: [REDIRECT_URI],
    });
    const website = await handle.db
      .selectFrom('websites')
      .select('owner_id')
      .where('id', '=', websiteId)
      .executeTakeFirstOrThrow();
    const code = await issueCode(deps, {
      clientId: client.clientId,
      websiteId,
      ownerId: website.owner_id,
      scopes: ['website.products.read'],
      offline: false,
      redirectUri: REDIRECT_URI,
      codeChallenge: null,
    });
    const res = await request(
      baseUrl,
      'POST',
      TOKEN_PATH,
      { authorization: basic(client.clientId, client.clientSecret), 'user-agent': 'crash-test' },
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    );
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body).access_token;
  } finally {
    await handle.close();
  }
}

test('a SIGKILL with notifications waiting loses none: after a restart every one arrives, signed', async () => {
  // No delivery workers at first, so every notification is still waiting when the process dies.
  server = await startServer({ ...env, WEBHOOK_WORKERS: '0' });
  const out = server.stdout();
  const apiKey = /API key +(emp_key_\S+)/.exec(out)?.[1];
  const websiteId = /website +([0-9a-f]{24})/.exec(out)?.[1];
  const storePageId = /store page ([0-9a-f]{24})/.exec(out)?.[1];
  assert.ok(apiKey && websiteId && storePageId, out);
  const token = await accessToken(server.baseUrl, websiteId);
  const subscribed = await request(
    server.baseUrl,
    'POST',
    '/1.0/webhook_subscriptions',
    { authorization: `Bearer ${token}`, 'user-agent': 'crash-test' },
    { endpointUrl: receiver.url, topics: ['product.create'] },
  );
  assert.equal(subscribed.status, 201, subscribed.body);
  const { secret } = JSON.parse(subscribed.body);

  const count = 20;
  for (let i = 0; i < count; i++) {
    const created = await request(
      server.baseUrl,
      'POST',
      '/1.1/commerce/products',
      { authorization: `Bearer ${apiKey}`, 'user-agent': 'crash-test' },
      {
        type: 'PHYSICAL',
        storePageId,
        name: `Crash ${i}`,
        variants: [{ sku: `CRASH-${i}`, pricing: { basePrice: { currency: 'USD', value: '1.00' } } }],
      },
    );
    assert.equal(created.status, 201, created.body);
  }
  const first = server;
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  assert.equal(receiver.received.length, 0);

  server = await startServer(env);
  const got = await receiver.got(count);
  assert.equal(new Set(got.map((r) => r.json.id)).size, count);
  for (const r of got) assertSigned(r, secret);
});
