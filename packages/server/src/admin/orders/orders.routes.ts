import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { cancelOrder } from '../../orders/cancel-order.ts';
import { findOrder, placedOrders, type OwnerOrder } from '../../orders/orders.read.ts';
import { fulfillOrder } from '../../orders/orders.service.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { DomainError, ValidationError } from '../../shared/errors.ts';
import { page, sendPage } from '../layout.ts';
import { blankFulfillForm, type FormError, type FulfillForm } from './order-actions.views.ts';
import { orderBody, type Done } from './order-page.views.ts';
import { ordersListBody, type ListFilters } from './orders.views.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { field } from '../../pages/forms.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DONE: Done[] = ['fulfilled', 'canceled', 'restocked', 'pending', 'email'];

/** A query parameter given once; a repeated one counts as absent rather than guessed at. */
function param(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * /sites/:websiteId/orders: the site's orders for its owner, an order, and its fulfill and cancel
 * forms, which go through the services the API's fulfillments use (so the same `order.update`).
 */
export const adminOrdersRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/orders', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const filters: ListFilters = {
      // `pending` is taken for `PENDING`: the statuses are the API's words, typed by hand too.
      fulfillmentStatus: param(request, 'status').toUpperCase(),
      from: param(request, 'from'),
      to: param(request, 'to'),
      search: param(request, 'q'),
    };
    const before = param(request, 'before');
    const context = { ...owner, csrf: request.browser.csrf, wide: true };
    const title = `Orders of ${site.title}`;
    try {
      const { orders, next } = await placedOrders(deps.commerce, site, { ...filters, before });
      const body = ordersListBody(site, { orders, filters, next, paged: before !== '' });
      return await sendPage(reply, 200, page(title, body, context));
    } catch (error) {
      // A filter the service refuses: the form again, with its message and the values sent.
      if (!(error instanceof ValidationError)) throw error;
      const body = ordersListBody(site, {
        orders: [],
        filters,
        next: null,
        paged: false,
        error: error.message,
      });
      return sendPage(reply, 400, page(title, body, context));
    }
  });

  /** The order's page, with the failed form's message and values when an answer was refused. */
  function orderPage(
    request: FastifyRequest,
    reply: FastifyReply,
    site: WebsitesTable,
    order: OwnerOrder,
    view: { status: number; form?: FulfillForm; restock?: boolean; error?: FormError; done?: Done },
  ) {
    const owner = ownerOf(request);
    const csrf = request.browser.csrf;
    const form = view.form ?? blankFulfillForm(deps.clock.now(site.id).toISOString().slice(0, 10));
    const body = orderBody(site, order, {
      ...view,
      csrf,
      form,
      restock: view.restock ?? order.stockTaken === true,
    });
    return sendPage(reply, view.status, page(`Order #${order.orderNumber}`, body, { ...owner, csrf }));
  }

  app.get('/sites/:websiteId/orders/:orderId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const done = DONE.find((d) => param(request, d) === '1');
    return orderPage(request, reply, site, order, { status: 200, done });
  });

  app.post('/sites/:websiteId/orders/:orderId/fulfillments', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const form: FulfillForm = {
      carrierName: field(request.body, 'carrierName').trim(),
      service: field(request.body, 'service').trim(),
      trackingNumber: field(request.body, 'trackingNumber').trim(),
      trackingUrl: field(request.body, 'trackingUrl').trim(),
      shipDate: field(request.body, 'shipDate').trim(),
      notify: field(request.body, 'notify') === '1',
    };
    try {
      await fulfillOrder(deps.commerce, site.id, order.id, {
        shouldSendNotification: form.notify,
        shipments: [
          {
            carrierName: form.carrierName,
            service: form.service,
            trackingNumber: form.trackingNumber,
            trackingUrl: form.trackingUrl || null,
            // A date input gives the day; the shipment's time is that day's start in UTC.
            shipDate: DATE.test(form.shipDate) ? `${form.shipDate}T00:00:00Z` : form.shipDate,
          },
        ],
      });
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?fulfilled=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      // The service names the API's field (shipments[0].service); the form has one shipment.
      const message = error.message.replace(/^shipments\[0\]\./, '');
      return orderPage(request, reply, site, order, {
        status: error.status,
        form,
        error: { form: 'fulfill', message },
      });
    }
  });

  app.post('/sites/:websiteId/orders/:orderId/cancel', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    // An unticked checkbox sends nothing: no `restock` is the owner's "do not restock".
    const restock = field(request.body, 'restock') === '1';
    try {
      if (field(request.body, 'confirm') !== 'yes') {
        throw new ValidationError('Tick "Yes, cancel order" to confirm; nothing was changed.');
      }
      const { restocked } = await cancelOrder(deps.commerce, site.id, order.id, { restock });
      const done: Done = restocked > 0 ? 'restocked' : 'canceled';
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?${done}=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      // Shown with the order as it is now: a refusal may come from a change made meanwhile.
      const current = await findOrder(deps.commerce, site.id, order.id);
      return orderPage(request, reply, site, current, {
        status: error.status,
        restock,
        error: { form: 'cancel', message: error.message },
      });
    }
  });
};
