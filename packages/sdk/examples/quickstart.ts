/**
 * A tour of the SDK against a running Emporium. `npm start` prints a demo API key; then:
 *
 *   EMPORIUM_API_KEY=emp_key_... npx tsx packages/sdk/examples/quickstart.ts
 *
 * (EMPORIUM_URL defaults to http://127.0.0.1:8080.) It creates a product, gives it an image and
 * stock, reads it back in several ways, and deletes it again. The SDK's end-to-end tests run it.
 */
import { pathToFileURL } from 'node:url';
import { ConflictError, Emporium } from '@emporium/sdk';

/** A 2x2 red PNG. */
const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWM4Y2x8xtiYAUIBACPqBMlwUmUNAAAAAElFTkSuQmCC',
  ),
  (c) => c.charCodeAt(0),
);

export async function quickstart(client: Emporium, log: (line: string) => void = console.log): Promise<void> {
  const website = await client.website.get();
  log(`website: ${website.title} (${website.currency})`);
  const { storePages } = await client.storePages.list();
  const page = storePages[0]!;

  const suffix = Date.now().toString(36);
  const shirt = await client.products.create({
    type: 'PHYSICAL',
    storePageId: page.id,
    name: `Linen Shirt ${suffix}`,
    isVisible: true,
    variantAttributes: ['Size'],
    variants: ['S', 'M'].map((size) => ({
      sku: `SHIRT-${size}-${suffix}`,
      attributes: { Size: size },
      pricing: { basePrice: { currency: website.currency, value: '39.00' } },
      stock: { quantity: 10, unlimited: false },
    })),
  });
  log(`created ${shirt.name}: ${shirt.url}`);

  const { imageId } = await client.products.images.upload(shirt.id, PNG, { filename: 'shirt.png' });
  await client.products.images.waitUntilReady(shirt.id, imageId, { timeoutMs: 30_000 });
  await client.products.images.setAltText(shirt.id, imageId, 'A linen shirt');
  await client.products.variants.setImage(shirt.id, shirt.variants[0]!.id, imageId);
  log(`image ${imageId} is ready`);

  await client.inventory.adjust({ incrementOperations: [{ variantId: shirt.variants[0]!.id, quantity: 5 }] });
  const stock = await client.inventory.get(shirt.variants.map((v) => v.id));
  log(`stock: ${stock.map((s) => `${s.descriptor} ${s.quantity}`).join(', ')}`);

  try {
    await client.inventory.adjust({
      decrementOperations: [{ variantId: shirt.variants[1]!.id, quantity: 99 }],
    });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    log(`refused as expected: ${error.subtype} (${error.message})`);
  }

  let count = 0;
  for await (const product of client.products.list({ type: 'PHYSICAL' })) if (product.id) count++;
  log(`${count} physical products in the store`);

  await client.products.delete(shirt.id);
  log(`deleted ${shirt.name}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const apiKey = process.env.EMPORIUM_API_KEY;
  if (!apiKey) {
    console.error('Set EMPORIUM_API_KEY (npm start prints the demo key).');
    process.exit(2);
  }
  await quickstart(
    new Emporium({
      baseUrl: process.env.EMPORIUM_URL ?? 'http://127.0.0.1:8080',
      userAgent: 'emporium-quickstart/1.0',
      apiKey,
    }),
  );
}
