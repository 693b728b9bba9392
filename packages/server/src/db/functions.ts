import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';

/**
 * Each SQL function and trigger function has one current definition, in its own file of
 * db/functions/ (`<name>.sql`, one CREATE OR REPLACE FUNCTION), as Flyway's repeatable
 * migrations: `git log` of the file is the function's history, and code points at the file.
 * Migrations 001 to 023 made and remade these functions, and still do on a new database; after
 * the migrations, the migrator applies each file whose text differs from the one it applied last
 * (a checksum in emporium_functions), in name order, in one transaction, holding the migrations'
 * lock (db/migrate.ts). A migration changes tables, not the bodies of these functions.
 *
 * - Name order: PL/pgSQL bodies are checked for syntax only when created, so a function may call
 *   one applied after it. A LANGUAGE sql function, checked in full, must sort after what it calls.
 * - The CREATE TRIGGER statements stay in the migrations: which table, events, columns and
 *   transition tables a trigger fires on is part of its table, and changes with it.
 * - CREATE OR REPLACE keeps a function's name, argument types and result type. Other argument
 *   types would make a second function beside the first (the migrator refuses a file that leaves
 *   two of its name); another result type fails. Such a change is a new function in a new file,
 *   called by the new release while the previous one still calls the old; the old file goes in a
 *   later release, with a migration that drops its function (deleting a file drops nothing).
 * - A release that finds the database migrated past it applies nothing (migrate.ts). Two releases
 *   with the same migrations but other files each put back their own definitions as their
 *   instances start: during a rolling upgrade a definition serves the calls of both releases (as
 *   every change must), and the new release's instances, started last, leave theirs in force.
 */
export interface FunctionDefinition {
  name: string;
  text: string;
}

/** Read at run time beside this module: the package runs from source, with no build step. */
const FOLDER = new URL('./functions/', import.meta.url);

/** The files of db/functions/, in name order: the order they are applied in. */
export function functionDefinitions(): FunctionDefinition[] {
  return fs
    .readdirSync(FOLDER)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.sql'.length),
      text: fs.readFileSync(new URL(file, FOLDER), 'utf8'),
    }));
}

export function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Applies each definition whose checksum differs from the one recorded for its name, and records
 * it; the names applied. Run inside the caller's transaction, holding the migrations' lock.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work on any schema
export async function applyFunctions(trx: Kysely<any>, definitions: FunctionDefinition[]): Promise<string[]> {
  const { rows } = await sql<{ name: string; checksum: string }>`
    SELECT name, checksum FROM emporium_functions`.execute(trx);
  const applied = new Map(rows.map((row) => [row.name, row.checksum]));
  const changed: string[] = [];
  for (const definition of definitions) {
    const sum = checksum(definition.text);
    if (applied.get(definition.name) === sum) continue;
    await sql.raw(definition.text).execute(trx);
    const { rows: found } = await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM pg_proc
      WHERE proname = ${definition.name}
        AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`.execute(trx);
    if (found[0]?.count !== 1) {
      throw new Error(
        `db/functions/${definition.name}.sql leaves ${found[0]?.count ?? 0} functions of that name: ` +
          'a file defines the function of its name, and a change of argument types needs a new name',
      );
    }
    await sql`
      INSERT INTO emporium_functions (name, checksum, applied_at) VALUES (${definition.name}, ${sum}, now())
      ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`.execute(
      trx,
    );
    changed.push(definition.name);
  }
  return changed;
}
