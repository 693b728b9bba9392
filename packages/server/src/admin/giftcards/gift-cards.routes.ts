import { maskedCode } from '../../giftcards/gift-card-codes.ts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { giftCardWithHistory, listGiftCards } from '../../giftcards/gift-cards.read.ts';
import { disableGiftCard } from '../../giftcards/gift-cards.service.ts';
import { NotFound, ValidationError } from '../../shared/errors.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { page, sendPage } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import { giftCardBody, giftCardsListBody } from './gift-cards.views.ts';

/** The newest cards the list shows. */
const LIST_LIMIT = 500;

/**
 * /sites/:websiteId/gift-cards: the site's gift cards for its owner; /gift-cards/:id one card with
 * its history and a Disable button (a POST with the session's CSRF token). The site's owner only.
 */
export const adminGiftCardsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  async function site(request: FastifyRequest, post = false) {
    const owner = ownerOf(request);
    if (post) requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    return { owner, site: await ownedWebsite(deps.db, owner.id, websiteId) };
  }
  const context = (request: FastifyRequest) => ({ ...ownerOf(request), csrf: request.browser.csrf });

  async function cardOf(request: FastifyRequest, websiteId: string) {
    const { giftCardId } = request.params as { giftCardId: string };
    const found = await giftCardWithHistory(deps.db, websiteId, giftCardId.toLowerCase());
    if (!found) throw new NotFound('There is no such gift card on this site.');
    return found;
  }

  app.get('/sites/:websiteId/gift-cards', async (request, reply) => {
    const { site: s } = await site(request);
    const cards = await listGiftCards(deps.db, s.id, LIST_LIMIT);
    const body = giftCardsListBody(s, cards);
    return sendPage(reply, 200, page(`Gift cards of ${s.title}`, body, { ...context(request), wide: true }));
  });

  app.get('/sites/:websiteId/gift-cards/:giftCardId', async (request, reply) => {
    const { site: s } = await site(request);
    const { card, events } = await cardOf(request, s.id);
    const done =
      (request.query as Record<string, unknown>).disabled === '1' ? 'Gift card disabled.' : undefined;
    const body = giftCardBody(s, card, events, request.browser.csrf, { done });
    return sendPage(reply, 200, page(`Gift card ${maskedCode(card.last_four)}`, body, context(request)));
  });

  app.post('/sites/:websiteId/gift-cards/:giftCardId/disable', async (request, reply) => {
    const { site: s } = await site(request, true);
    const { card } = await cardOf(request, s.id);
    try {
      await disableGiftCard(deps, s.id, card.id);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const { card: now, events } = await cardOf(request, s.id);
      const body = giftCardBody(s, now, events, request.browser.csrf, { error: error.message });
      return sendPage(reply, 400, page(`Gift card ${maskedCode(now.last_four)}`, body, context(request)));
    }
    return reply.redirect(`/sites/${s.id}/gift-cards/${card.id}?disabled=1`, 303);
  });
};
