import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

// bigint columns hold money in minor units and counts, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDatabase(url: string, options: { max?: number } = {}): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  // An idle connection that dies (database restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}

/** Maps a PostgreSQL unique-violation to the constraint name, so repositories can raise a Conflict. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' ? (e.constraint ?? 'unique') : undefined;
}
