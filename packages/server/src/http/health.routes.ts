import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ServiceUnavailable } from '../shared/errors.ts';
import type { ImageStorage } from '../media/storage.ts';

/** What an instance needs to serve requests. */
export interface ReadinessDeps {
  db: Db;
  /** Shared rate-limit counts (REDIS_URL), checked only when configured. */
  redis?: Redis;
  /** Where image files live: its folder, or its S3 bucket. */
  storage: ImageStorage;
}

/** A dependency that does not answer within this is as good as down for a request. */
const CHECK_TIMEOUT_MS = 1_000;

/** The dependencies /readyz checks, by name: each resolves when that one answers. */
function readinessChecks(deps: ReadinessDeps): Record<string, () => Promise<unknown>> {
  const { db, redis, storage } = deps;
  return {
    database: () => sql`SELECT 1`.execute(db),
    'image storage': () => storage.check(),
    ...(redis && { redis: () => redis.ping() }),
  };
}

function within(ms: number, check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const answered = check().then(
    () => true,
    () => false,
  );
  return Promise.race([answered, late]).finally(() => clearTimeout(timer));
}

/**
 * Liveness and readiness for load balancers and orchestrators; no credentials. /readyz runs every
 * check at once and is a 503 in the documented error body naming each that failed, so that an
 * instance that cannot serve is taken out of rotation and the operator sees why.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<ReadinessDeps> = async (app, deps) => {
  const checks = Object.entries(readinessChecks(deps));
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    const results = await Promise.all(checks.map(([, check]) => within(CHECK_TIMEOUT_MS, check)));
    const down = checks.filter((_, i) => !results[i]).map(([name]) => name);
    if (down.length > 0) {
      const names = down.length > 1 ? `${down.slice(0, -1).join(', ')} and ${down.at(-1)}` : down[0];
      throw new ServiceUnavailable(`not ready: ${names} ${down.length > 1 ? 'are' : 'is'} unreachable`);
    }
    return { status: 'ok', checks: Object.fromEntries(checks.map(([name]) => [name, 'ok'])) };
  });
};
