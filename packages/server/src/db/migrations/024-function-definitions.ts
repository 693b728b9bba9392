import { type Kysely } from 'kysely';

/**
 * The checksum of each SQL function's definition in force, one row a function: the migrator
 * applies a file of db/functions/ after the migrations when its checksum differs (db/functions.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('emporium_functions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'timestamptz', (c) => c.notNull())
    .execute();
}
