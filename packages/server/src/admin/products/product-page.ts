import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiVersion } from '../../catalog/product-types.ts';
import { getProduct } from '../../catalog/products.read.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { DomainError } from '../../shared/errors.ts';
import { page, sendPage } from '../layout.ts';
import { editBody, type EditView } from './product-edit.views.ts';
import { formError, valuesOf, type FormError } from './product-form.ts';
import type { ShownProduct } from './products.views.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';

/** What the product pages share: who is asking, the product as the API shows it, its page. */

/**
 * The product pages' policy: as every owner page, but scripts from this origin may run, for the
 * upload's progress (the page works without it).
 */
const PRODUCT_PAGE_CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;object-src 'none';base-uri 'none';frame-ancestors 'none'";

/** The signed-in owner and their website named in the path; another owner's is a 404. */
export async function ownedSite(deps: AdminDeps, request: FastifyRequest) {
  const owner = ownerOf(request);
  const { websiteId } = request.params as { websiteId: string };
  const site = await ownedWebsite(deps.db, owner.id, websiteId);
  return { owner, site };
}

/**
 * The version whose rules a change of this type goes by: v2 knows every type, but a download is
 * created and deleted through 1.1 only (platform-surface 2.5).
 */
export function apiFor(type: string): ApiVersion {
  return type === 'DIGITAL' ? '1.1' : 'v2';
}

/** The product as the v2 API answers it, from the same cached documents. */
export async function shownProduct(
  deps: AdminDeps,
  websiteId: string,
  productId: string,
): Promise<ShownProduct> {
  return JSON.parse((await getProduct(deps.commerce, websiteId, productId, 'v2')).toString('utf8'));
}

const SAVED: Record<string, string> = {
  created: 'The product was created.',
  details: 'The details were saved.',
  variant: 'The variant was saved.',
  'variant-added': 'The variant was added.',
  'variant-removed': 'The variant was removed.',
  'variant-image': "The variant's image was saved.",
  stock: 'The stock was updated.',
  'stock-replayed': 'That stock change had already been made.',
  images: 'The images were uploaded; they show once they are processed.',
  alt: 'The alt text was saved.',
  moved: 'The image was moved.',
  'image-deleted': 'The image was deleted.',
  download: 'The file was uploaded: buyers now download it.',
};

/** Where a change leaves the owner: the product's page, saying what was done. */
export function savedRedirect(reply: FastifyReply, site: WebsitesTable, productId: string, what: string) {
  return reply.redirect(`/sites/${site.id}/products/${productId}?saved=${what}`, 303);
}

export function savedNotice(request: FastifyRequest): string | undefined {
  const saved = (request.query as Record<string, unknown>).saved;
  return typeof saved === 'string' && Object.hasOwn(SAVED, saved) ? SAVED[saved] : undefined;
}

/** The product's page, with a refused form shown again or a notice of what was saved. */
export async function sendEditPage(
  deps: AdminDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  site: WebsitesTable,
  productId: string,
  state: { status?: number; error?: FormError; notice?: string } = {},
) {
  const product = await shownProduct(deps, site.id, productId);
  const csrf = request.browser.csrf;
  const view: EditView = { csrf, stockKey: () => deps.ids.uuid(), error: state.error, notice: state.notice };
  const owner = ownerOf(request);
  reply.header('content-security-policy', PRODUCT_PAGE_CSP);
  const title = product.name || 'Untitled product';
  return sendPage(reply, state.status ?? 200, page(title, editBody(site, product, view), { ...owner, csrf }));
}

/** A refusal of the services (not a missing product) is shown on the page; anything else is thrown. */
export function refusal(error: unknown): DomainError {
  if (error instanceof DomainError && error.status !== 404 && error.status < 500) return error;
  throw error;
}

/** Runs one change of a product form; a refusal shows the page again with the form as sent. */
export async function changeOrShow(
  deps: AdminDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { site: WebsitesTable; productId: string; key: string },
  change: () => Promise<string>,
) {
  try {
    const what = await change();
    return savedRedirect(reply, form.site, form.productId, what);
  } catch (error) {
    const refused = refusal(error);
    const shown = formError(form.key, refused, valuesOf(request.body));
    return sendEditPage(deps, request, reply, form.site, form.productId, {
      status: refused.status,
      error: shown,
    });
  }
}
