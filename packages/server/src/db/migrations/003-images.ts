import { sql, type Kysely } from 'kysely';

/** Product images (api-details 5); their files live in image storage under the image's id. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('alt_text', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format IN ('jpeg', 'png', 'gif', 'webp')`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status IN ('QUEUED', 'PROCESSING', 'READY', 'ERROR')`),
    )
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('widths', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX images_product_idx ON images (product_id, position)`.execute(db);
  await sql`ALTER TABLE variants ADD CONSTRAINT variants_image_fkey
            FOREIGN KEY (image_id) REFERENCES images (id) ON DELETE SET NULL`.execute(db);
}
