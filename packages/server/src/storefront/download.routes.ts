import type { FastifyPluginAsync } from 'fastify';
import { openDownload } from '../catalog/digital-goods.ts';
import { useDownload } from '../orders/download-links.ts';
import { notice } from '../pages/notice.ts';
import { Gone, NotFound } from '../shared/errors.ts';
import { STORE_PARAMS, storeOf } from './cart-pages.ts';
import { sendStorePage, storePage } from './layout.ts';
import type { StoreDeps } from './store-deps.ts';

/**
 * `Content-Disposition` for a file name of any characters (RFC 6266): an ASCII fallback with
 * anything else, quotes and backslashes as `_`, and the exact name percent-encoded in UTF-8.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * /s/<websiteId>/downloads/<link id>/<signature>: a paid DIGITAL line's file (orders/download-links.ts).
 * A link that works is counted and the file streamed as an attachment, never kept by a shared
 * cache; one that does not gets a page saying why, and counts nothing.
 */
export const downloadRoutes: FastifyPluginAsync<{ deps: StoreDeps }> = async (app, { deps }) => {
  app.get<{ Params: { websiteId: string; linkId: string; signature: string } }>(
    '/:websiteId/downloads/:linkId/:signature',
    // No HEAD: it would run this handler and count a download nobody received.
    { schema: STORE_PARAMS, exposeHeadRoute: false },
    async (request, reply) => {
      const { websiteId, linkId, signature } = request.params;
      const store = await storeOf(deps, websiteId);
      const frame = { websiteId: store.id, title: store.title };
      let file;
      try {
        const download = await useDownload(deps.api, store.id, linkId, signature);
        const opened = await openDownload(deps.api.storage, download.fileId);
        if (!opened) throw new Gone('This download is no longer available in the store.');
        file = { ...download, ...opened };
      } catch (error) {
        if (!(error instanceof NotFound) && !(error instanceof Gone)) throw error;
        const title = error instanceof Gone ? 'Download no longer available' : 'Download not found';
        return sendStorePage(reply, error.status, storePage(frame, title, notice(error.message)));
      }
      return (
        reply
          .code(200)
          .header('content-type', 'application/octet-stream')
          .header('content-length', String(file.size))
          .header('content-disposition', contentDisposition(file.filename))
          // The link is the buyer's own: no shared cache may keep the file or answer another with it.
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .send(file.stream)
      );
    },
  );
};
