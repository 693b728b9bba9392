import { sql, type Kysely } from 'kysely';

/**
 * Webhook subscriptions and their deliveries (api-details 7), and the idempotency keys of
 * inventory adjustments.
 *
 * A subscription's secret is not stored: it is derived from a server key, the subscription id
 * and `secret_version` (webhooks/signature.ts), so a database read alone reveals no secret.
 * A delivery is one notification to one subscription: the outbox row, written in the
 * transaction of the change that causes it, with its body fixed then so that every retry sends
 * the same bytes and the same `id`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('endpoint_url', 'text', (c) => c.notNull())
    .addColumn('topics', sql`text[]`, (c) => c.notNull())
    .addColumn('secret_version', 'integer', (c) => c.notNull())
    .addColumn('created_on', time, (c) => c.notNull())
    .addColumn('updated_on', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_subscriptions_website_client_idx')
    .on('webhook_subscriptions')
    .columns(['website_id', 'client_id'])
    .execute();

  // No foreign key to the subscription: an extension.uninstall notification outlives the
  // subscriptions it was sent to, which go with the app's access.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('endpoint_url', 'text', (c) => c.notNull())
    .addColumn('secret_version', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('created_on', time, (c) => c.notNull())
    .addColumn('retry_until', time, (c) => c.notNull())
    .addColumn('next_attempt_at', time)
    .addColumn('leased_until', time)
    .addColumn('completed_on', time)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_subscription_idx')
    .on('webhook_deliveries')
    .columns(['subscription_id', 'created_on'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_website_idx')
    .on('webhook_deliveries')
    .columns(['website_id', 'created_on'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', time, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pkey', ['delivery_id', 'attempt'])
    .execute();

  // One row per adjustment that was applied; `caller` is the API key or OAuth client, so two
  // apps of one site never share a key's meaning.
  await db.schema
    .createTable('inventory_adjustment_keys')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_digest', 'bytea', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addPrimaryKeyConstraint('inventory_adjustment_keys_pkey', ['website_id', 'caller', 'key'])
    .execute();
  await db.schema
    .createIndex('inventory_adjustment_keys_created_idx')
    .on('inventory_adjustment_keys')
    .column('created_at')
    .execute();
  // The inventory list pages through a website's variants by id (catalog/inventory/inventory.repo.ts).
  await sql`CREATE INDEX variants_website_idx ON variants (website_id, id)`.execute(db);
}
