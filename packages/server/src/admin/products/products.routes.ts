import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { listProducts } from '../../catalog/products.read.ts';
import {
  CreateProductV2Body,
  ListProductsV2Query,
  UpdateProductV2Body,
} from '../../catalog/v2/products-v2.schemas.ts';
import { createProduct, deleteProduct, updateProduct } from '../../catalog/products.service.ts';
import { CreateProductBody, type UpdateProductInput } from '../../catalog/products.schemas.ts';
import { hasAttributes, type ProductType } from '../../catalog/product-types.ts';
import { listStorePages } from '../../sites/store-pages.repo.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { page, sendPage } from '../layout.ts';
import { stateOf } from './product-fields.ts';
import {
  checkSchema,
  formError,
  nameList,
  newProductInput,
  pricingOf,
  rowCount,
  seoOf,
  valuesOf,
  variantRows,
  type FormError,
  type Values,
} from './product-form.ts';
import { adminProductImagesRoutes } from './product-images.routes.ts';
import { adminProductDownloadRoutes } from './product-download.routes.ts';
import {
  apiFor,
  changeOrShow,
  ownedSite,
  refusal,
  savedNotice,
  savedRedirect,
  sendEditPage,
  shownProduct,
} from './product-page.ts';
import { adminProductVariantsRoutes } from './product-variants.routes.ts';
import { deleteBody, gridBody, newProductBody, type ShownProduct } from './products.views.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';

/** The URL the API's product list answers at, whose cached pages these share. */
const LIST_URL = '/v2/commerce/products';

function param(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** The details form as updateProduct's changes: only what the form holds for the product's type. */
function detailsChanges(values: Values, product: ShownProduct, currency: string): UpdateProductInput {
  const changes: UpdateProductInput = {
    name: (values.name ?? '').trim(),
    description: values.description ?? '',
    isVisible: values.isVisible === 'on',
    seoOptions: seoOf(values),
  };
  const slug = (values.urlSlug ?? '').trim();
  if (slug !== product.urlSlug) changes.urlSlug = slug;
  // Tags as typed replace them; left as shown, they are not sent (a tag set through the API may hold a comma).
  const tags = values.tags?.trim();
  if (tags !== undefined && tags !== product.tags.join(', ')) changes.tags = nameList(tags);
  if (hasAttributes(product.type as ProductType)) {
    const names = nameList(values.variantAttributes ?? '');
    if (names.join('\n') !== (product.variantAttributes ?? []).join('\n')) changes.variantAttributes = names;
  }
  if (product.type === 'DIGITAL') changes.pricing = pricingOf(values, '', currency);
  return changes;
}

/**
 * /sites/:websiteId/products: the owner's products: the grid with its search, a new product with
 * its variants, a product's page and its deletion. Every change is a call of the services the
 * API's routes call, so the same rules hold and the same webhooks fire.
 */
export const adminProductsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  const newForm = async (request: FastifyRequest, site: WebsitesTable, values: Values, error?: FormError) => {
    const storePages = await listStorePages(deps.db, site.id, undefined, 100);
    const current = { type: 'PHYSICAL', storePageId: storePages[0]?.id ?? '', ...values };
    const state = stateOf('new', current, error && { ...error, values: current });
    return newProductBody(site, { csrf: request.browser.csrf, state, storePages });
  };

  app.get('/sites/:websiteId/products', async (request, reply) => {
    const { owner, site } = await ownedSite(deps, request);
    const query = param(request, 'query').trim();
    const type = param(request, 'type');
    const cursor = param(request, 'cursor');
    // A cursor carries the search it continues (as the API's).
    const filter = cursor ? { cursor } : { ...(query && { query }), ...(type && { type }) };
    checkSchema(ListProductsV2Query, filter, 'query');
    const list = await listProducts(
      deps.commerce,
      site.id,
      filter,
      `${deps.commerce.baseUrl}${LIST_URL}`,
      'v2',
    );
    const { products, pagination } = JSON.parse(list.toString('utf8')) as {
      products: ShownProduct[];
      pagination: { nextPageCursor: string | null };
    };
    const notice = param(request, 'deleted') === '1' ? 'The product was deleted.' : undefined;
    const body = gridBody(site, { products, query, type, next: pagination.nextPageCursor, notice });
    const context = { ...owner, csrf: request.browser.csrf };
    return sendPage(reply, 200, page(`Products of ${site.title}`, body, context));
  });

  app.get('/sites/:websiteId/products/new', async (request, reply) => {
    const { owner, site } = await ownedSite(deps, request);
    const body = await newForm(request, site, {});
    return sendPage(reply, 200, page('New product', body, { ...owner, csrf: request.browser.csrf }));
  });

  app.post('/sites/:websiteId/products', async (request, reply) => {
    const { owner, site } = await ownedSite(deps, request);
    requireCsrf(deps, request);
    const values = valuesOf(request.body);
    const context = { ...owner, csrf: request.browser.csrf };
    if (values.action === 'add-row') {
      const body = await newForm(request, site, { ...values, rows: String(rowCount(values) + 1) });
      return sendPage(reply, 200, page('New product', body, context));
    }
    try {
      const input = newProductInput(values, site);
      const api = apiFor(input.type);
      // The request schema of the version the product is created through.
      checkSchema(api === 'v2' ? CreateProductV2Body : CreateProductBody, input);
      const created = JSON.parse((await createProduct(deps.commerce, site.id, input, api)).toString('utf8'));
      return savedRedirect(reply, site, created.id, 'created');
    } catch (error) {
      const refused = refusal(error);
      const shown = formError('new', refused, values, { rows: variantRows(values), pricingAt: 'v0.' });
      const body = await newForm(request, site, values, shown);
      return sendPage(reply, refused.status, page('New product', body, context));
    }
  });

  app.get('/sites/:websiteId/products/:productId', async (request, reply) => {
    const { site } = await ownedSite(deps, request);
    const { productId } = request.params as { productId: string };
    return sendEditPage(deps, request, reply, site, productId, { notice: savedNotice(request) });
  });

  app.post('/sites/:websiteId/products/:productId', async (request, reply) => {
    const { site } = await ownedSite(deps, request);
    requireCsrf(deps, request);
    const { productId } = request.params as { productId: string };
    const product = await shownProduct(deps, site.id, productId);
    return changeOrShow(deps, request, reply, { site, productId, key: 'details' }, async () => {
      const changes = detailsChanges(valuesOf(request.body), product, site.currency);
      checkSchema(UpdateProductV2Body, changes);
      await updateProduct(deps.commerce, site.id, productId, changes, 'v2');
      return 'details';
    });
  });

  app.get('/sites/:websiteId/products/:productId/delete', async (request, reply) => {
    const { owner, site } = await ownedSite(deps, request);
    const { productId } = request.params as { productId: string };
    const product = await shownProduct(deps, site.id, productId);
    const csrf = request.browser.csrf;
    const title = `Delete ${product.name || 'this product'}?`;
    return sendPage(reply, 200, page(title, deleteBody(site, product, csrf), { ...owner, csrf }));
  });

  app.post('/sites/:websiteId/products/:productId/delete', async (request, reply) => {
    const { site } = await ownedSite(deps, request);
    requireCsrf(deps, request);
    const { productId } = request.params as { productId: string };
    const product = await shownProduct(deps, site.id, productId);
    try {
      await deleteProduct(deps.commerce, site.id, productId, apiFor(product.type));
    } catch (error) {
      const refused = refusal(error);
      const shown = { form: 'page', field: '', message: refused.message, values: {} };
      return sendEditPage(deps, request, reply, site, productId, { status: refused.status, error: shown });
    }
    return reply.redirect(`/sites/${site.id}/products?deleted=1`, 303);
  });

  await app.register(adminProductVariantsRoutes, { deps });
  await app.register(adminProductImagesRoutes, { deps });
  await app.register(adminProductDownloadRoutes, { deps });
};
