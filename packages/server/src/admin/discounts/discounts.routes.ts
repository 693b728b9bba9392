import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { WebsitesTable } from '../../db/schema.ts';
import {
  createDiscount,
  deleteDiscount,
  getDiscount,
  listDiscounts,
  replaceDiscount,
} from '../../discounts/discounts.service.ts';
import type { DiscountBodyT, DiscountT } from '../../discounts/discounts.schemas.ts';
import { DomainError } from '../../shared/errors.ts';
import { discountError, discountInput, discountValues, keepUnshown } from './discount-form.ts';
import { deleteBody, discountFormBody, discountsListBody } from './discounts.views.ts';
import { page, sendPage } from '../layout.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import type { FormError, Values } from '../products/product-form.ts';
import { valuesOf } from '../products/product-form.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { field } from '../../pages/forms.ts';

const DONE: Record<string, string> = {
  created: 'Discount created.',
  saved: 'Discount saved.',
  disabled: 'Discount disabled: it has ended and no longer applies.',
  enabled: 'Discount enabled: it applies with no end date.',
  deleted: 'Discount deleted.',
  usedUp:
    'The end date was cleared, but the discount has used all its uses: raise its limit to use it again.',
};
/** The list shows the newest discounts; a site has at most 1000 (README, "Discounts"). */
const LIST_LIMIT = '1000';

/**
 * /sites/:websiteId/discounts: the site's discounts for its owner. Every change goes through the
 * discounts service the API uses, so the same rules, limits and errors apply (platform-surface 2.7).
 * Disabling ends the discount now (validTo), which an app reads as status EXPIRED (README).
 */
export const adminDiscountsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  async function site(request: FastifyRequest, post = false) {
    const owner = ownerOf(request);
    if (post) requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    return { owner, site: await ownedWebsite(deps.db, owner.id, websiteId) };
  }
  const discountOf = (request: FastifyRequest, s: WebsitesTable) =>
    getDiscount(deps, s.id, (request.params as { discountId: string }).discountId);
  const context = (request: FastifyRequest) => ({ ...ownerOf(request), csrf: request.browser.csrf });

  function form(
    request: FastifyRequest,
    reply: FastifyReply,
    s: WebsitesTable,
    view: { status: number; discount?: DiscountT; values: Values; error?: FormError },
  ) {
    const base = `/sites/${s.id}/discounts`;
    const body = discountFormBody(s, {
      action: view.discount ? `${base}/${view.discount.id}` : base,
      values: view.values,
      csrf: request.browser.csrf,
      error: view.error,
      submit: view.discount ? 'Save discount' : 'Create discount',
    });
    const title = view.discount ? `Discount “${view.discount.name}”` : 'New discount';
    return sendPage(reply, view.status, page(title, body, context(request)));
  }

  /** Writes the form through the service; a refusal shows the form again beside the field it names. */
  async function save(request: FastifyRequest, reply: FastifyReply, s: WebsitesTable, before?: DiscountT) {
    const values = valuesOf(request.body);
    try {
      const input = keepUnshown(discountInput(values, s.currency), before);
      if (before) await replaceDiscount(deps, s.id, before.id, input);
      else await createDiscount(deps, s.id, input);
      return await reply.redirect(`/sites/${s.id}/discounts?${before ? 'saved' : 'created'}=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      const view = { status: error.status, discount: before, values, error: discountError(error, values) };
      return form(request, reply, s, view);
    }
  }

  app.get('/sites/:websiteId/discounts', async (request, reply) => {
    const { site: s } = await site(request);
    const { discounts } = await listDiscounts(deps, s.id, { limit: LIST_LIMIT, status: 'ALL' });
    const query = request.query as Record<string, unknown>;
    const done = Object.keys(DONE).find((key) => query[key] === '1');
    const body = discountsListBody(s, discounts, request.browser.csrf, done && DONE[done]);
    return sendPage(reply, 200, page(`Discounts of ${s.title}`, body, { ...context(request), wide: true }));
  });

  app.get('/sites/:websiteId/discounts/new', async (request, reply) => {
    const { site: s } = await site(request);
    const start = deps.clock.now(s.id).toISOString().slice(0, 16);
    const values = {
      trigger: 'CODE',
      criteriaType: 'ANY_ORDER',
      templateType: 'PERCENTAGE',
      validFrom: start,
    };
    return form(request, reply, s, { status: 200, values });
  });

  app.post('/sites/:websiteId/discounts', async (request, reply) => {
    const { site: s } = await site(request, true);
    return save(request, reply, s);
  });

  app.get('/sites/:websiteId/discounts/:discountId', async (request, reply) => {
    const { site: s } = await site(request);
    const discount = await discountOf(request, s);
    return form(request, reply, s, { status: 200, discount, values: discountValues(discount) });
  });

  app.post('/sites/:websiteId/discounts/:discountId', async (request, reply) => {
    const { site: s } = await site(request, true);
    return save(request, reply, s, await discountOf(request, s));
  });

  /**
   * Disable: the discount ends now (validTo), so an app reads status EXPIRED and no cart uses it.
   * One not yet started starts now too, as validTo must be later than validFrom (2.7.1).
   */
  app.post('/sites/:websiteId/discounts/:discountId/disable', async (request, reply) => {
    const { site: s } = await site(request, true);
    const d = await discountOf(request, s);
    const now = deps.clock.now(s.id);
    const from = new Date(d.validFrom) < now ? d.validFrom : new Date(now.getTime() - 1000).toISOString();
    const body = { ...d, validFrom: from, validTo: now.toISOString() } as unknown as DiscountBodyT;
    await replaceDiscount(deps, s.id, d.id, body);
    return reply.redirect(`/sites/${s.id}/discounts?disabled=1`, 303);
  });

  /** Enable: the end date is cleared; a discount whose uses ran out stays EXPIRED until edited. */
  app.post('/sites/:websiteId/discounts/:discountId/enable', async (request, reply) => {
    const { site: s } = await site(request, true);
    const d = await discountOf(request, s);
    const after = await replaceDiscount(deps, s.id, d.id, {
      ...d,
      validTo: null,
    } as unknown as DiscountBodyT);
    const done = after.status === 'EXPIRED' ? 'usedUp' : 'enabled';
    return reply.redirect(`/sites/${s.id}/discounts?${done}=1`, 303);
  });

  app.get('/sites/:websiteId/discounts/:discountId/delete', async (request, reply) => {
    const { site: s } = await site(request);
    const d = await discountOf(request, s);
    return sendPage(
      reply,
      200,
      page(`Delete “${d.name}”`, deleteBody(s, d, request.browser.csrf), context(request)),
    );
  });

  app.post('/sites/:websiteId/discounts/:discountId/delete', async (request, reply) => {
    const { site: s } = await site(request, true);
    const d = await discountOf(request, s);
    if (field(request.body, 'confirm') !== 'yes')
      return reply.redirect(`/sites/${s.id}/discounts/${d.id}/delete`, 303);
    await deleteDiscount(deps, s.id, d.id);
    return reply.redirect(`/sites/${s.id}/discounts?deleted=1`, 303);
  });
};
