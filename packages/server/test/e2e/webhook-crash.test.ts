import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { connectedAppToken } from '../helpers/app-token.ts';
import { freshDatabase } from '../helpers/database.ts';
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

test('a SIGKILL with notifications waiting loses none: after a restart every one arrives, signed', async () => {
  // No delivery workers at first, so every notification is still waiting when the process dies.
  server = await startServer({ ...env, WEBHOOK_WORKERS: '0' });
  const out = server.stdout();
  const apiKey = /API key +(emp_key_\S+)/.exec(out)?.[1];
  const websiteId = /website +([0-9a-f]{24})/.exec(out)?.[1];
  const storePageId = /store page ([0-9a-f]{24})/.exec(out)?.[1];
  assert.ok(apiKey && websiteId && storePageId, out);
  const { accessToken: token } = await connectedAppToken(env.DATABASE_URL!, server.baseUrl, {
    websiteId,
    name: 'Crash listener',
    scopes: ['website.products.read'],
  });
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
