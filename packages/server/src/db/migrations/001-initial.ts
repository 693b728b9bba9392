import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);

  await db.schema
    .createTable('owners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX owners_email_key ON owners (lower(email))`.execute(db);

  await db.schema
    .createTable('websites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('measurement_standard', 'text', (c) =>
      c.notNull().check(sql`measurement_standard IN ('IMPERIAL', 'METRIC')`),
    )
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('websites_owner_idx').on('websites').column('owner_id').execute();

  await db.schema
    .createTable('store_pages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('url_slug', 'text', (c) => c.notNull())
    .addColumn('is_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addUniqueConstraint('store_pages_slug_key', ['website_id', 'url_slug'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('key_digest', 'bytea', (c) => c.notNull().unique())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('last_used_at', sql`timestamptz(3)`)
    .addColumn('revoked_at', sql`timestamptz(3)`)
    .execute();
  await db.schema.createIndex('api_keys_website_idx').on('api_keys').column('website_id').execute();

  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bytea', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('store_page_id', 'text', (c) => c.notNull().references('store_pages.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type IN ('PHYSICAL', 'DIGITAL')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('url_slug', 'text', (c) => c.notNull())
    .addColumn('tags', sql`text[]`, (c) => c.notNull())
    .addColumn('is_visible', 'boolean', (c) => c.notNull())
    .addColumn('variant_attributes', sql`text[]`, (c) => c.notNull())
    // Product-level pricing exists for DIGITAL products only; money is in integer minor units.
    .addColumn('currency', 'text')
    .addColumn('base_price_minor', 'bigint')
    .addColumn('sale_price_minor', 'bigint')
    .addColumn('on_sale', 'boolean')
    .addColumn('seo_options', 'jsonb')
    .addColumn('digital_good', 'jsonb')
    // Lower-cased name, description text, tags and SKUs: what `query` searches, trigram-indexed.
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_on', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('modified_on', sql`timestamptz(3)`, (c) => c.notNull())
    .addUniqueConstraint('products_slug_key', ['store_page_id', 'url_slug'])
    .execute();
  // Keyset pagination: (modified_on, id) within a website, with and without the type filter.
  await sql`CREATE INDEX products_page_idx ON products (website_id, modified_on, id)`.execute(db);
  await sql`CREATE INDEX products_type_page_idx ON products (website_id, type, modified_on, id)`.execute(db);
  await sql`CREATE INDEX products_search_idx ON products USING gin (search_text gin_trgm_ops)`.execute(db);

  await db.schema
    .createTable('variants')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('attributes', 'jsonb', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('base_price_minor', 'bigint', (c) => c.notNull())
    .addColumn('sale_price_minor', 'bigint', (c) => c.notNull())
    .addColumn('on_sale', 'boolean', (c) => c.notNull())
    .addColumn('stock_quantity', 'integer', (c) => c.notNull().check(sql`stock_quantity >= 0`))
    .addColumn('stock_unlimited', 'boolean', (c) => c.notNull())
    .addColumn('weight_unit', 'text', (c) => c.notNull())
    .addColumn('weight_value', 'double precision', (c) => c.notNull())
    .addColumn('dimension_unit', 'text', (c) => c.notNull())
    .addColumn('length', 'double precision', (c) => c.notNull())
    .addColumn('width', 'double precision', (c) => c.notNull())
    .addColumn('height', 'double precision', (c) => c.notNull())
    // Images arrive with the image pipeline; the column is here so variants can point at one.
    .addColumn('image_id', 'text')
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addUniqueConstraint('variants_sku_key', ['website_id', 'sku'])
    .execute();
  await sql`CREATE INDEX variants_product_idx ON variants (product_id, position)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations only go forward');
}
