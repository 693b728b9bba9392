import os from 'node:os';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';
import { systemClock } from './shared/clock.ts';
import { openDatabase } from './db/database.ts';
import { Jobs } from './jobs/queue.ts';
import { FileImageStorage } from './media/storage.ts';
import { randomIds } from './shared/ids.ts';
import { webhookSettings } from './webhooks/delivery.ts';

/** Where the committed document lives: the repository root. */
export const OPENAPI_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../openapi.json',
);

/** The OpenAPI document generated from the route schemas. Building the app opens no connection. */
export async function openapiDocument(): Promise<string> {
  const handle = openDatabase('postgres://unused@127.0.0.1:1/unused');
  const app = await buildApp({
    config: {
      baseUrl: 'http://127.0.0.1:8080',
      authUrl: 'http://127.0.0.1:8080',
      logLevel: 'silent',
      rateLimitPerMinute: 300,
      // Documented with the rest, under their own tag and security scheme.
      testControlsToken: 'documenting-the-test-controls',
    },
    db: handle.db,
    pool: handle.pool,
    storage: new FileImageStorage(os.tmpdir()),
    jobs: new Jobs(handle.url), // never started: nothing is queued while documenting
    clock: systemClock,
    ids: randomIds,
    cursorKey: randomBytes(32),
    csrfKey: randomBytes(32),
    webhooks: webhookSettings(randomBytes(32), false),
  });
  await app.ready();
  const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  await handle.close();
  return document;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(OPENAPI_PATH, await openapiDocument());
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
