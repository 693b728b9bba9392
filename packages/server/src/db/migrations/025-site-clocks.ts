import { type Kysely } from 'kysely';

/**
 * How far each website's time runs ahead of the service's (its test clock, shared/clock.ts): 0
 * for every site until a test moves one. Only added, so a release before it runs on as it did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('websites')
    .addColumn('clock_shift_ms', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
