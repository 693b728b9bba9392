import { Migrator, sql, type Kysely } from 'kysely';
import { applyFunctions, functionDefinitions, type FunctionDefinition } from './functions.ts';
import * as initial from './migrations/001-initial.ts';
import * as changeNotifications from './migrations/002-change-notifications.ts';
import * as images from './migrations/003-images.ts';
import * as oauthClients from './migrations/004-oauth-clients.ts';
import * as oauthGrants from './migrations/005-oauth-grants.ts';
import * as ownerWeb from './migrations/006-owner-web.ts';
import * as clientIcons from './migrations/007-client-icons.ts';
import * as webhooksInventory from './migrations/008-webhooks-inventory.ts';
import * as imageHolders from './migrations/009-image-holders.ts';
import * as changeClocks from './migrations/010-change-clocks.ts';
import * as ownerNames from './migrations/011-owner-names.ts';
import * as orders from './migrations/012-orders.ts';
import * as productTypes from './migrations/013-product-types.ts';
import * as tokenFunctions from './migrations/014-token-functions.ts';
import * as tokenWrites from './migrations/015-token-writes.ts';
import * as orderStock from './migrations/016-order-stock.ts';
import * as confirmLastUsed from './migrations/017-confirm-last-used.ts';
import * as contacts from './migrations/018-contacts.ts';
import * as discounts from './migrations/019-discounts.ts';
import * as discountRedemptions from './migrations/020-discount-redemptions.ts';
import * as authenticateAccessToken from './migrations/021-authenticate-access-token.ts';
import * as redemptionsByOrder from './migrations/022-redemptions-by-order.ts';
import * as pendingByRefreshToken from './migrations/023-pending-by-refresh-token.ts';
import * as functionDefinitionsTable from './migrations/024-function-definitions.ts';
import * as siteClocks from './migrations/025-site-clocks.ts';
import * as apiLog from './migrations/026-api-log.ts';
import * as emails from './migrations/028-emails.ts';
import * as faultRules from './migrations/027-fault-rules.ts';
import * as refunds from './migrations/029-refunds.ts';
import * as downloads from './migrations/030-downloads.ts';
import * as giftCards from './migrations/031-gift-cards.ts';
import * as keyImportsIndex from './migrations/032-key-imports-index.ts';

/** Numbered migrations, listed here so they are bundled with the code rather than found on disk. */
const migrations = {
  '001-initial': initial,
  '002-change-notifications': changeNotifications,
  '003-images': images,
  '004-oauth-clients': oauthClients,
  '005-oauth-grants': oauthGrants,
  '006-owner-web': ownerWeb,
  '007-client-icons': clientIcons,
  '008-webhooks-inventory': webhooksInventory,
  '009-image-holders': imageHolders,
  '010-change-clocks': changeClocks,
  '011-owner-names': ownerNames,
  '012-orders': orders,
  '013-product-types': productTypes,
  '014-token-functions': tokenFunctions,
  '015-token-writes': tokenWrites,
  '016-order-stock': orderStock,
  '017-confirm-last-used': confirmLastUsed,
  '018-contacts': contacts,
  '019-discounts': discounts,
  '020-discount-redemptions': discountRedemptions,
  '021-authenticate-access-token': authenticateAccessToken,
  '022-redemptions-by-order': redemptionsByOrder,
  '023-pending-by-refresh-token': pendingByRefreshToken,
  '024-function-definitions': functionDefinitionsTable,
  '025-site-clocks': siteClocks,
  '026-api-log': apiLog,
  '028-emails': emails,
  '027-fault-rules': faultRules,
  '029-refunds': refunds,
  '030-downloads': downloads,
  '031-gift-cards': giftCards,
  '032-key-imports-index': keyImportsIndex,
};

/**
 * Migrations this release does not know, already run by a newer release. The previous release
 * keeps running on the schema a newer one migrated (every migration only adds, or changes what it
 * changes so that the code before it still works: docs/production.md, "Upgrades without
 * downtime"), so an instance of it that restarts during a rolling upgrade starts as usual. Empty
 * when the database has none.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work on any schema
export async function newerMigrations(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations`
    .execute(db)
    .catch((error: { code?: string }) => {
      if (error.code === '42P01') return { rows: [] }; // no table yet: a new database
      throw error;
    });
  const known = Object.keys(migrations);
  const executed = new Set(rows.map((row) => row.name));
  const newer = [...executed].filter((name) => !known.includes(name)).sort();
  const missing = known.filter((name) => !executed.has(name));
  if (newer.length && missing.length) {
    throw new Error(
      `the database was migrated by a release with ${newer.join(', ')} but without ${missing.join(', ')}: this release cannot run on it`,
    );
  }
  return newer;
}

/** The advisory lock of Kysely's migrator on PostgreSQL (its PostgresAdapter's LOCK_ID). */
const MIGRATION_LOCK = '3853314791062309107';

/**
 * The migrations, then the SQL functions' definitions (db/functions.ts); the names of the
 * migrations run. `functions` is for tests: the files of db/functions/ otherwise.
 */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work on any schema
  db: Kysely<any>,
  functions: FunctionDefinition[] = functionDefinitions(),
): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  if ((await newerMigrations(db)).length) return [];
  const { error, results } = await migrator.migrateToLatest();
  // A newer release may have migrated while this one waited for the migrations' lock.
  if (error && (await newerMigrations(db)).length) return [];
  if (error) throw error;
  await migrateFunctions(db, functions);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Applies the changed definitions of SQL functions in one transaction, holding the migrator's
 * lock, so instances starting at once apply them one after the other (the later ones find nothing
 * changed). A release that finds the database migrated past it leaves the functions to the newer
 * release, whose definitions serve the previous release's calls (docs/production.md, "Upgrades
 * without downtime").
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work on any schema
async function migrateFunctions(db: Kysely<any>, functions: FunctionDefinition[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)}::bigint)`.execute(trx);
    if ((await newerMigrations(trx)).length) return [];
    return applyFunctions(trx, functions);
  });
}
