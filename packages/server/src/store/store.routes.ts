import type { FastifyPluginAsync } from 'fastify';
import { storePagePath } from '../catalog/store-urls.ts';
import { NotFound } from '../errors.ts';
import { html } from '../web/html.ts';
import { sendStorePage, storePage, storeNotice } from './layout.ts';
import { enabledStorePages, findStore } from './store.repo.ts';
import type { StoreDeps } from './store-deps.ts';

/** Website ids are 24 hex characters (ids.ts); anything else names no store. */
const WEBSITE_ID = '^[0-9a-f]{24}$';

interface StoreParams {
  websiteId: string;
}

/** A store's front page: its enabled store pages. */
export const storeRoutes: FastifyPluginAsync<{ deps: StoreDeps }> = async (app, { deps }) => {
  app.get<{ Params: StoreParams }>(
    '/:websiteId',
    {
      schema: {
        params: { type: 'object', properties: { websiteId: { type: 'string', pattern: WEBSITE_ID } } },
      },
    },
    async (request, reply) => {
      const { websiteId } = request.params;
      const store = await findStore(deps.api, websiteId);
      if (!store) throw new NotFound('no such store');
      const pages = await enabledStorePages(deps.api, websiteId);
      const body = pages.length
        ? html`<nav aria-label="Store pages">
            <ul class="pages">
              ${pages.map((p) => html`<li><a href="${storePagePath(websiteId, p.url_slug)}">${p.title}</a></li>`)}
            </ul>
          </nav>`
        : storeNotice('This store has nothing on show yet.', 'info');
      return sendStorePage(reply, 200, storePage({ websiteId, title: store.title }, store.title, body));
    },
  );
};
