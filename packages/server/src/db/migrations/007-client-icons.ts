import { sql, type Kysely } from 'kysely';

/** An app's icon, at most 200 KB, kept with the app: shown on the consent and owner pages. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('icon', 'bytea')
    .addColumn('icon_type', 'text')
    .addColumn('icon_updated_at', sql`timestamptz(3)`)
    .execute();
}
