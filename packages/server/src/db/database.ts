import { Kysely, type Compilable, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { PostgresWithEmptyInLists } from './empty-in-lists.ts';
import { PreparingClient, statementName } from './prepared-statements.ts';
import type { Database } from './schema.ts';

// bigint columns hold money in minor units and counts, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  /** The pool under `db`, for prepared statements (queryPrepared). */
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

export function openDatabase(url: string, options: { max?: number } = {}): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, Client: PreparingClient });
  // A connection that dies (the database restarted or went away) must not crash the process. An
  // idle one is reported on the pool, which replaces it. One checked out between two statements
  // (a transaction) is reported on the client alone, with no listener of the pool's: its next
  // statement fails, which answers the request 503, and the pool drops it when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({
    dialect: new PostgresWithEmptyInLists({ pool }),
  });
  return { db, pool, url, close: () => db.destroy() };
}

/**
 * Runs a query as a named prepared statement: PostgreSQL parses and plans it once per connection
 * instead of on every call, which more than halves the cost of a small lookup (bench/README.md).
 * Every distinct SQL text stays prepared on every connection, so this is for the hot reads, whose
 * texts are few; and not for queries whose best plan depends on the values (a search pattern),
 * since a prepared statement may settle on one generic plan. (A transaction's statements are
 * prepared anyway: prepared-statements.ts.)
 */
export async function queryPrepared<R>(pool: pg.Pool, query: Compilable<R> | CompiledQuery<R>): Promise<R[]> {
  // A raw `sql` template compiles only against the database (`.compile(db)`), a builder by itself.
  const { sql, parameters } = 'compile' in query ? query.compile() : query;
  const result = await pool.query({ name: statementName(sql), text: sql, values: parameters as unknown[] });
  return result.rows as R[];
}

/** Maps a PostgreSQL unique-violation to the constraint name, so repositories can raise a Conflict. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' ? (e.constraint ?? 'unique') : undefined;
}
