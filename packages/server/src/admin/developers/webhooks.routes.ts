import type { FastifyPluginAsync } from 'fastify';
import { resendDelivery, siteSubscriptions, type DeliveryView } from '../../webhooks/deliveries.service.ts';
import { html } from '../../pages/html.ts';
import { page, sendPage, tableBox, when } from '../layout.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';

const STATUS_WORDS: Record<DeliveryView['status'], string> = {
  PENDING: 'Waiting to be sent',
  DELIVERED: 'Delivered',
  FAILED: 'Failed for 48 hours; given up',
  CANCELLED: 'Dropped: the subscription was deleted',
};

/** What the last attempt of a delivery got: the receiver's status code, or why none came. */
function outcome(delivery: DeliveryView): string {
  if (delivery.attempts === 0) return 'not yet tried';
  return delivery.lastStatusCode !== null ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? '');
}

/** /sites/:websiteId/webhooks: what each app subscribed to, and how its notifications went. */
export const adminWebhooksRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/webhooks', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const subscriptions = await siteSubscriptions(deps.db, site.id);
    const csrf = request.browser.csrf;
    const cards = subscriptions.length
      ? subscriptions.map(
          (subscription) =>
            html`<div class="card">
              <h3>${subscription.appName}</h3>
              <p class="meta">${subscription.endpointUrl} · ${subscription.topics.join(', ')}</p>
              ${
                subscription.deliveries.length
                  ? tableBox(
                      `Notifications to ${subscription.appName}`,
                      html`<table>
                        <thead>
                          <tr>
                            <th>Event</th>
                            <th>When</th>
                            <th>Status</th>
                            <th>Attempts</th>
                            <th>Last answer</th>
                            <th></th>
                          </tr>
                        </thead>
                        <tbody>
                          ${subscription.deliveries.map(
                            (delivery) =>
                              html`<tr>
                                <td>${delivery.topic}</td>
                                <td>${when(delivery.createdOn)}</td>
                                <td>${STATUS_WORDS[delivery.status]}</td>
                                <td>${String(delivery.attempts)}</td>
                                <td>${outcome(delivery)}</td>
                                <td>
                                  <form
                                    method="post"
                                    action="/sites/${site.id}/webhooks/deliveries/${delivery.id}/resend"
                                  >
                                    <input type="hidden" name="csrf" value="${csrf}" />
                                    <button>Resend</button>
                                  </form>
                                </td>
                              </tr>`,
                          )}
                        </tbody>
                      </table>`,
                    )
                  : html`<p>No notification yet.</p>`
              }
            </div>`,
        )
      : html`<p>No app has subscribed to this site’s events.</p>`;
    const body = html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
      ${cards}`;
    return sendPage(reply, 200, page(`Webhooks of ${site.title}`, body, { ...owner, csrf, wide: true }));
  });

  app.post('/sites/:websiteId/webhooks/deliveries/:deliveryId/resend', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, deliveryId } = request.params as { websiteId: string; deliveryId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await resendDelivery(deps, site.id, deliveryId);
    return reply.redirect(`/sites/${site.id}/webhooks`, 303);
  });
};
