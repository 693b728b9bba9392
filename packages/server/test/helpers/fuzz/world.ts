import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { SCOPES } from '../../../src/shared/scopes.ts';
import { createProduct, digital, physical, variant } from '../factories.ts';
import { formData } from './bodies.ts';
import { KINDS, type Ids, type Known } from './values.ts';
import type { Site, TestContext } from '../test-app.ts';
import { connectApp, type ConnectedApp } from '../webhooks.ts';
import { basic, registerApp } from '../oauth.ts';

/** In every name and SKU of website B, so a response carrying any of them is found by one search. */
const B_MARKER = 'bravo7f3a9c';

const SUBSCRIPTIONS = '/1.0/webhook_subscriptions';
const noIds = (): Ids => Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Ids;
let made = 0;

interface Tenant {
  site: Site;
  oauth: ConnectedApp;
  ids: Ids;
  families: Partial<Ids>[];
}

function ok(res: LightMyRequestResponse, status: number): LightMyRequestResponse {
  assert.equal(res.statusCode, status, res.body.slice(0, 500));
  return res;
}

/** A PHYSICAL product with two variants, an image and the image on a variant; a DIGITAL product. */
async function products(t: Tenant, png: Buffer, prefix: string): Promise<string> {
  const n = ++made;
  const rich = await createProduct(
    t.site,
    physical(t.site, {
      name: `${prefix} lamp ${n}`,
      variantAttributes: ['Size'],
      variants: ['S', 'M'].map((size) => variant(`${prefix}-${n}-${size}`, { attributes: { Size: size } })),
    }),
  );
  const boundary = 'setup-boundary';
  const upload = ok(
    await t.site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${rich.id}/images`,
      payload: formData(boundary, [{ name: 'file', filename: `${prefix}.png`, data: png }]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    }),
    202,
  );
  const imageId = upload.json().imageId as string;
  const variantIds = rich.variants.map((v: { id: string }) => v.id) as string[];
  ok(
    await t.site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${rich.id}/variants/${variantIds[0]}/image`,
      payload: { imageId },
    }),
    204,
  );
  const book = await createProduct(t.site, digital(t.site, { name: `${prefix} guide ${n}` }));
  t.ids.product.unshift(rich.id, book.id);
  t.ids.variant.unshift(...variantIds);
  t.ids.image.unshift(imageId);
  t.families.unshift({ product: [rich.id], variant: variantIds, image: [imageId] }, { product: [book.id] });
  return imageId;
}

async function subscriptions(t: Tenant): Promise<string[]> {
  const listed = ok(await t.oauth.call('GET', SUBSCRIPTIONS), 200).json().webhookSubscriptions as {
    id: string;
  }[];
  if (listed.length) return listed.map((s) => s.id);
  const created = ok(
    await t.oauth.call('POST', SUBSCRIPTIONS, {
      endpointUrl: 'https://hooks.example.com/setup',
      topics: ['order.create'],
    }),
    201,
  ).json();
  return [created.id];
}

/** The next-page cursors of the three paged lists, for `site`. */
async function cursors(site: Site): Promise<string[]> {
  const lists = ['/1.1/commerce/products', '/1.0/commerce/inventory', '/1.0/commerce/store_pages'];
  const pages = await Promise.all(lists.map((url) => site.call({ method: 'GET', url })));
  return pages.map((p) => ok(p, 200).json().pagination.nextPageCursor).filter(Boolean);
}

export interface World {
  /** Strings only website B's data contains: its ids, names, SKUs and credentials. */
  needles: string[];
  /** Gives A new products, variants and an image, and a subscription if the fuzzing deleted them all. */
  refresh(): Promise<Known>;
  /** Everything of website B, read with B's own credentials. */
  snapshotOfB(): Promise<unknown>;
}

/** Website A (whose credentials the fuzzer uses) and website B (whose data it must never see). */
export async function fuzzWorld(ctx: TestContext): Promise<World> {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c85028' } })
    .png()
    .toBuffer();
  const app = await registerApp(ctx);
  const tenant = async (): Promise<Tenant> => {
    const site = await ctx.site();
    const oauth = await connectApp(ctx, [...SCOPES], { app, site });
    const ids = noIds();
    ids.storePage.push(site.storePageId);
    ids.website.push(site.websiteId);
    return { site, oauth, ids, families: [] };
  };
  const a = await tenant();
  const b = await tenant();
  // More than a page of each, so that every list hands out a cursor.
  for (const [t, prefix] of [
    [a, 'ALPHA'],
    [b, B_MARKER],
  ] as const) {
    for (let start = 0; start < 51; start += 10) {
      const batch = Array.from({ length: Math.min(10, 51 - start) }, (_, k) =>
        createProduct(
          t.site,
          physical(t.site, {
            name: `${prefix} mug ${start + k}`,
            variants: [variant(`${prefix}-M${start + k}`)],
          }),
        ),
      );
      const created = await Promise.all(batch);
      if (start === 0) {
        t.ids.product.push(created[0].id);
        t.ids.variant.push(created[0].variants[0].id);
        t.families.push({ product: [created[0].id], variant: [created[0].variants[0].id] });
      }
    }
    const imageId = await products(t, png, prefix);
    // B's image is done before B is read, so that its processing is not taken for a change.
    if (t === b) await ctx.imageProcessed(imageId);
  }
  const bSubscription = ok(
    await b.oauth.call('POST', SUBSCRIPTIONS, {
      endpointUrl: 'https://hooks.example.com/b',
      topics: ['order.create'],
    }),
    201,
  ).json();
  b.ids.subscription.push(bSubscription.id);
  const known: Known = {
    own: a.ids,
    foreign: b.ids,
    families: a.families,
    cursors: [...(await cursors(a.site)), ...(await cursors(b.site))],
    bearer: [`Bearer ${a.site.apiKey}`, `Bearer ${a.oauth.accessToken}`],
    basic: [basic(app.clientId, app.clientSecret)],
    png,
  };
  const snapshotOfB = async () => {
    const read = async (url: string) => ok(await b.site.call({ method: 'GET', url }), 200).json();
    const first = await read('/1.1/commerce/products');
    return {
      products: [
        first,
        await read(`/1.1/commerce/products?cursor=${encodeURIComponent(first.pagination.nextPageCursor)}`),
      ],
      inventory: await read('/1.0/commerce/inventory'),
      website: await read('/1.0/authorization/website'),
      subscriptions: ok(await b.oauth.call('GET', SUBSCRIPTIONS), 200).json(),
    };
  };
  return {
    needles: [
      B_MARKER,
      ...KINDS.flatMap((k) => b.ids[k]),
      b.site.apiKey,
      b.oauth.accessToken,
      bSubscription.secret,
    ],
    async refresh() {
      await products(a, png, 'ALPHA');
      a.ids.subscription = await subscriptions(a);
      // The newest first: the fuzzing of earlier operations may have deleted the older ones.
      return { ...known, own: structuredClone(a.ids), families: a.families.slice(0, 3) };
    },
    snapshotOfB,
  };
}
