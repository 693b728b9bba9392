import type { FastifyPluginAsync } from 'fastify';
import { NotFound } from '../../shared/errors.ts';
import { withParams } from '../../oauth/authorize.ts';
import { partnerClients } from '../../oauth/clients.service.ts';
import { iconPath } from './developer-apps.routes.ts';
import { html } from '../../pages/html.ts';
import { page, sendPage } from '../layout.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';

/**
 * Extensions: partner apps (clients with an initiate URL), which an owner connects from a site.
 * Connect sends the owner to the app's initiate URL with `website_id`, and the app starts the
 * authorization for that site (spec: website_id).
 */
export const adminExtensionsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  const partners = () => partnerClients(deps.db);

  app.get('/sites/:websiteId/extensions', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const apps = await partners();
    const cards = apps.length
      ? apps.map(
          (partner) =>
            html`<div class="card app">
              ${partner.icon_type ? html`<img class="icon" src="${iconPath(partner.id)}" alt="" width="48" height="48" />` : html`<div class="avatar" aria-hidden="true">${partner.name.slice(0, 1).toUpperCase()}</div>`}
              <div>
                <h3>${partner.name}</h3>
                <p class="meta">
                  ${partner.terms_url ? html`<a href="${partner.terms_url}">Terms</a> ` : ''}${partner.privacy_url ? html`<a href="${partner.privacy_url}">Privacy</a>` : ''}
                </p>
                <p>
                  <a href="/sites/${site.id}/extensions/${partner.id}/connect">Connect to ${site.title}</a>
                </p>
              </div>
            </div>`,
        )
      : html`<p>No extension is available yet.</p>`;
    const body = html`<p><a href="/sites/${site.id}">${site.title}</a></p>
      ${cards}`;
    return sendPage(reply, 200, page('Extensions', body, { ...owner, csrf: request.browser.csrf }));
  });

  app.get('/sites/:websiteId/extensions/:clientId/connect', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, clientId } = request.params as { websiteId: string; clientId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const partner = (await partners()).find((p) => p.id === clientId);
    if (!partner?.initiate_url) throw new NotFound('There is no such extension.');
    return reply.redirect(withParams(partner.initiate_url, { website_id: site.id }), 303);
  });
};
