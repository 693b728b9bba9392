import { sql } from 'kysely';
import pg from 'pg';
import type { Clock } from '../shared/clock.ts';
import type { DatabaseHandle, Db } from './database.ts';

/**
 * The `modifiedOn` of changes, in the order sync clients read them (api-details 4): a reader
 * that has seen a position must never find a change behind it later.
 *
 * A stamp read from the clock early in a transaction cannot promise that: a change stamped later
 * may commit first, a reader moves past it, and the earlier stamp becomes visible behind the
 * reader. So a change is stamped last, just before its commit, from the website's change clock:
 * a row of `change_clocks` holding the last stamp given. Taking a stamp updates the row, and its
 * row lock is released only once the commit is visible to every new snapshot; the next writer of
 * the website waits for it and then takes a later stamp. The stamps of a website thus grow in the
 * order their changes become visible, whatever the clocks of the instances say, and each change
 * has its own millisecond, so a reader resuming with `modifiedAfter` set to the newest
 * `modifiedOn` it has seen misses no change that shared it.
 *
 * Readers of a window ending at "now" need one more thing: see closeWindow().
 */

/** The tables whose rows are ordered by the change clock, with the columns a stamp may set. */
interface Stamped {
  products: 'modified_on' | 'created_on';
  orders: 'modified_on';
  transaction_documents: 'modified_on' | 'created_on';
}

/** The type of each table's id, so the ids given compare with the key's index. */
const ID_TYPES: Record<keyof Stamped, string> = {
  products: 'text',
  orders: 'text',
  transaction_documents: 'uuid',
};

/** Rows of one table to stamp, with the columns the stamp sets (`modified_on` when not given). */
export interface StampPart<T extends keyof Stamped = keyof Stamped> {
  table: T;
  ids: string[];
  columns?: Stamped[T][];
  /**
   * Other columns the same statement sets, to these values on every row of the part (undefined
   * leaves a column as it is, as Kysely's `set` does): the change itself, so that its rows are
   * written once and not again for their stamps (each write of a row is a new version of it in
   * every index). None that a unique index holds: the clock's holder would wait there for another
   * writer, which may be waiting for the clock.
   */
  values?: Record<string, unknown>;
}

/**
 * Stamps these rows of the website, each later than every stamp the website's clock gave before,
 * increasing in the order given, the parts one after the other (one part a table); returns each
 * part's stamps, in the order of its ids. One statement: the clock's row lock is held from it to
 * the commit, while other writers of the website wait, so call it as the last work of the
 * transaction, on rows it has already written.
 */
export async function stampTables(
  trx: Db,
  clock: Clock,
  websiteId: string,
  parts: StampPart[],
): Promise<Date[][]> {
  return (await stamp(trx, clock, websiteId, parts)).stamps;
}

/**
 * stampTables(), the order `orderId` (one of the parts' orders) also given the website's next
 * order number (`order_numbers`) in the same statement, so that an order holds the website for
 * one round trip less. The counter's row stays locked until the commit, as the clock's, so the
 * numbers follow one another in the order of the commits, without gaps (a refused order gives its
 * number back) and without repeats. The number is taken before the clock (the clock's row is
 * written from it), so the two row locks always come in that order.
 */
export async function stampAndNumberOrder(
  trx: Db,
  clock: Clock,
  websiteId: string,
  parts: StampPart[],
  orderId: string,
): Promise<{ stamps: Date[][]; orderNumber: number }> {
  const { stamps, orderNumber } = await stamp(trx, clock, websiteId, parts, orderId);
  if (orderNumber === undefined) throw new Error(`order ${orderId} was not among the rows stamped`);
  return { stamps, orderNumber };
}

async function stamp(
  trx: Db,
  clock: Clock,
  websiteId: string,
  parts: StampPart[],
  numbered?: string,
): Promise<{ stamps: Date[][]; orderNumber?: number }> {
  const count = parts.reduce((sum, part) => sum + part.ids.length, 0);
  if (count === 0) return { stamps: parts.map(() => []) };
  const updates = parts.flatMap(({ table, ids, columns = ['modified_on'], values = {} }, k) => {
    if (ids.length === 0) return [];
    const set = sql.join([
      ...columns.map((column) => sql`${sql.ref(column)} = stamps.stamp`),
      ...Object.entries(values).flatMap(([column, value]) =>
        value === undefined ? [] : [sql`${sql.ref(column)} = ${value}`],
      ),
      ...(numbered !== undefined && table === 'orders'
        ? [
            sql`order_number = CASE WHEN t.id = ${numbered} THEN (SELECT last FROM numbered) ELSE t.order_number END`,
          ]
        : []),
    ]);
    const number = numbered !== undefined && table === 'orders' ? sql`t.order_number` : sql`NULL::int8`;
    return [
      sql`${sql.raw(`u${k}`)} AS (
        UPDATE ${sql.table(table)} AS t SET ${set} FROM stamps
        WHERE stamps.part = ${k}::int4 AND t.id = stamps.id::${sql.raw(ID_TYPES[table])}
        RETURNING stamps.part, stamps.id, stamps.stamp, ${number} AS number)`,
    ];
  });
  const returned = sql.join(
    parts.flatMap((part, k) =>
      part.ids.length ? [sql`SELECT part, id, stamp, number FROM ${sql.raw(`u${k}`)}`] : [],
    ),
    sql` UNION ALL `,
  );
  // The clock's row is taken from the number's when there is one: the number is locked first.
  const numbering =
    numbered === undefined
      ? sql``
      : sql`numbered AS (
          INSERT INTO order_numbers AS n (website_id, last) VALUES (${websiteId}, 1)
          ON CONFLICT (website_id) DO UPDATE SET last = n.last + 1
          RETURNING last
        ),`;
  const after = numbered === undefined ? sql`` : sql`FROM numbered`;
  // A website without a clock row (new, or filled by a bulk load) starts past its newest change.
  const { rows } = await sql<{ part: number; id: string; stamp: Date; number: number | null }>`
    WITH ${numbering} clock AS (
      INSERT INTO change_clocks AS c (website_id, stamp)
      SELECT ${websiteId}::text, greatest(${clock.now(websiteId)}::timestamptz,
        (SELECT max(modified_on) + interval '1 ms' FROM products WHERE website_id = ${websiteId}),
        (SELECT max(modified_on) + interval '1 ms' FROM orders WHERE website_id = ${websiteId}),
        (SELECT max(modified_on) + interval '1 ms' FROM transaction_documents WHERE website_id = ${websiteId}))
        + ${count - 1}::int4 * interval '1 ms'
      ${after}
      ON CONFLICT (website_id) DO UPDATE SET stamp = greatest(excluded.stamp, c.stamp + ${count}::int4 * interval '1 ms')
      RETURNING stamp AS last
    ), stamps AS (
      SELECT s.part, s.id, clock.last - (${count}::int4 - s.n) * interval '1 ms' AS stamp
      FROM clock, unnest(${parts.flatMap((part, k) => part.ids.map(() => k))}::int4[],
                         ${parts.flatMap((part) => part.ids)}::text[]) WITH ORDINALITY AS s(part, id, n)
    ), ${sql.join(updates)}
    ${returned}`.execute(trx);
  const stamps = new Map(rows.map((row) => [`${row.part}:${row.id}`, row.stamp]));
  const orderNumber = rows.find((row) => row.id === numbered && row.number !== null)?.number ?? undefined;
  return { stamps: parts.map((part, k) => part.ids.map((id) => stamps.get(`${k}:${id}`)!)), orderNumber };
}

/** stampTables() of one table's rows. */
export async function stampRows<T extends keyof Stamped>(
  trx: Db,
  clock: Clock,
  websiteId: string,
  table: T,
  ids: string[],
  columns: Stamped[T][] = ['modified_on'],
): Promise<Date[]> {
  const [stamps] = await stampTables(trx, clock, websiteId, [{ table, ids, columns } as StampPart]);
  return stamps!;
}

/** How far ahead of the website's time a window's end may be for closeWindow() to close it. */
const MAX_WINDOW_AHEAD_MS = 1000;

/**
 * Before a window of the website's changes ending at `end` is read: when this returns, every
 * change not yet visible will get a stamp after `end`, so a reader whose next window starts at
 * `end` misses none. It raises the clock to `end`, which waits for the changes being stamped now
 * to commit. An end more than MAX_WINDOW_AHEAD_MS ahead of the website's time is left open:
 * the clock is not moved into the future for it.
 *
 * Committed without waiting for the disk (no row of the catalog depends on it): a raise lost in
 * a crash was to a time the clock has passed since.
 */
export async function closeWindow(
  deps: { pool: DatabaseHandle['pool']; clock: Clock },
  websiteId: string,
  end: Date,
): Promise<void> {
  if (end.getTime() - deps.clock.now(websiteId).getTime() > MAX_WINDOW_AHEAD_MS) return;
  // One round trip: a simple query, so its values are written as literals.
  await deps.pool.query(`
    BEGIN;
    SET LOCAL synchronous_commit = off;
    INSERT INTO change_clocks AS c (website_id, stamp)
    VALUES (${pg.escapeLiteral(websiteId)}, ${pg.escapeLiteral(end.toISOString())})
    ON CONFLICT (website_id) DO UPDATE SET stamp = excluded.stamp WHERE c.stamp < excluded.stamp;
    COMMIT`);
}
