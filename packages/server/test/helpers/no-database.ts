import os from 'node:os';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { randomIds } from '../../src/shared/ids.ts';
import { Jobs } from '../../src/jobs/queue.ts';
import { FileImageStorage } from '../../src/media/storage.ts';
import { freePort } from '../../src/shared/net.ts';
import { webhookSettings } from '../../src/webhooks/delivery.ts';

/** An app whose database is a closed port on 127.0.0.1, as when the database is down. */
export async function appWithoutDatabase(redis?: Redis) {
  const handle = openDatabase(`postgres://nobody@127.0.0.1:${await freePort()}/none`, { max: 1 });
  const app = await buildApp({
    config: { baseUrl: 'http://x', authUrl: 'http://x', logLevel: 'silent', rateLimitPerMinute: 100 },
    db: handle.db,
    pool: handle.pool,
    storage: new FileImageStorage(os.tmpdir()),
    jobs: new Jobs(handle.url),
    clock: systemClock,
    ids: randomIds,
    cursorKey: Buffer.alloc(32),
    csrfKey: Buffer.alloc(32),
    webhooks: webhookSettings(Buffer.alloc(32), false),
    redis,
  });
  return {
    app,
    close: async () => {
      await app.close();
      await handle.close();
    },
  };
}
