import { sql, type Kysely } from 'kysely';

/** The owner's name, as `GET /1.0/authorization/member` answers it; empty for earlier owners. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('owners')
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(sql`''`))
    .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(sql`''`))
    .execute();
}
