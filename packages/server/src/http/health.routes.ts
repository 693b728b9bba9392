import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ServiceUnavailable } from '../errors.ts';
import type { ImageStorage } from '../media/storage.ts';

/** Liveness and readiness for load balancers and orchestrators; no credentials. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db; storage: ImageStorage }> = async (
  app,
  { db, storage },
) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await sql`SELECT 1`.execute(db);
    } catch {
      throw new ServiceUnavailable('the database is unreachable');
    }
    try {
      await storage.check();
    } catch (error) {
      // The cause is logged with the 503, not shown.
      throw Object.assign(new ServiceUnavailable('the image storage is unavailable'), { cause: error });
    }
    return { status: 'ok' };
  });
};
