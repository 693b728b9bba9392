import { createHash } from 'node:crypto';
import pg from 'pg';

/** Names by SQL text; bounded, since texts differ by the length of their lists. */
const names = new Map<string, string>();
const MAX_NAMES = 10_000;

/** The name a SQL text is prepared under, on any connection: the same text, the same name. */
export function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = createHash('sha256').update(sql).digest('base64url').slice(0, 20);
    if (names.size >= MAX_NAMES) names.clear();
    names.set(sql, name);
  }
  return name;
}

/**
 * Every column of a table, named: a statement reading whole rows through it can be prepared,
 * where `select *` cannot (ALL_COLUMNS). The object lists each column once; the compiler refuses
 * one left out or unknown, so the list follows the table's type.
 */
export function columnsOf<Row>(columns: Record<keyof Row & string, true>): (keyof Row & string)[] {
  return Object.keys(columns) as (keyof Row & string)[];
}

/** Statements a connection prepares for transactions: memory kept by PostgreSQL for each. */
const MAX_PREPARED = 200;

/**
 * A projection of every column (`select *`, `"t".*`, `returning *`): a column added by a migration
 * while the service runs changes its result, which PostgreSQL refuses for a prepared statement
 * ("cached plan must not change result type"), on that connection until it closes.
 */
const ALL_COLUMNS = /(?:\bselect|\breturning|,|\.)\s*\*/i;

/**
 * A connection that sends the statements of a transaction as named prepared statements: parsed
 * and planned once per connection instead of on every call. A write (an import: about twenty
 * statements) spends about as much of PostgreSQL's time planning and parsing as executing
 * (bench/README.md). Statements outside a transaction are left alone: the hot reads are prepared
 * by choice (database.ts, queryPrepared), and a search's best plan depends on its pattern, where
 * a prepared statement may settle on one generic plan. Kysely runs a transaction's statements one
 * after another, so the status the last one left is the transaction's.
 */
export class PreparingClient extends pg.Client {
  private readonly prepared = new Set<string>();

  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    if (
      typeof text === 'string' &&
      Array.isArray(values) &&
      values.length > 0 && // not `commit`, `rollback`, a migration's DDL: nothing to plan
      callback === undefined &&
      (this as unknown as { getTransactionStatus(): string | null }).getTransactionStatus() === 'T' &&
      !ALL_COLUMNS.test(text)
    ) {
      const name = statementName(text);
      if (this.prepared.has(name) || this.prepared.size < MAX_PREPARED) {
        this.prepared.add(name);
        return super.query({ name, text, values }) as never;
      }
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
