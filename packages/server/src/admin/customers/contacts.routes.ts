import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { listEntries } from '../../customers/address-book.read.ts';
import { contactOrders } from '../../customers/contact-orders.ts';
import { contactPage } from '../../customers/contacts-query.ts';
import { getContact } from '../../customers/contacts.service.ts';
import { LIMITS } from '../../customers/contacts.schemas.ts';
import { ValidationError } from '../../shared/errors.ts';
import { contactBody, contactsListBody } from './contacts.views.ts';
import { page, sendPage } from '../layout.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';

const PAGE_SIZE = 50;
/** The addresses a contact's page shows; a book rarely holds more. */
const BOOK_SIZE = '100';

function param(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * /sites/:websiteId/contacts: the site's contacts for its owner, searched as the API's
 * `POST /v1/contacts/query` searchString searches (platform-surface 2.6.3), and one contact.
 */
export const adminContactsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/contacts', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const q = param(request, 'q').trim();
    const cursor = param(request, 'cursor');
    const context = { ...owner, csrf: request.browser.csrf, wide: true };
    const title = `Contacts of ${site.title}`;
    try {
      if (q.length > LIMITS.search) throw new ValidationError(`Search: at most ${LIMITS.search} characters.`);
      // The cursor carries its query (the search), as the API's does.
      const body = { pageSize: PAGE_SIZE, ...(q && { searchString: q }) };
      const asked = cursor ? { cursor } : { pageSize: PAGE_SIZE, body };
      const { contacts, pagination } = await contactPage(deps.commerce, site.id, asked);
      const view = { contacts, q, next: pagination.nextPageCursor, paged: cursor !== '' };
      return await sendPage(reply, 200, page(title, contactsListBody(site, view), context));
    } catch (error) {
      // A search or cursor the service refuses: the form again, with its message and the text sent.
      if (!(error instanceof ValidationError)) throw error;
      const view = { contacts: [], q, next: null, paged: false, error: error.message };
      return sendPage(reply, 400, page(title, contactsListBody(site, view), context));
    }
  });

  app.get('/sites/:websiteId/contacts/:contactId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, contactId } = request.params as { websiteId: string; contactId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const contact = await getContact(deps, site.id, contactId);
    const orders = await contactOrders(deps, site.id, contact.id);
    const { addressBook, pagination } = await listEntries(deps.commerce, site.id, contact.id, {
      pageSize: BOOK_SIZE,
    });
    const book = {
      entries: addressBook.addressBookEntries,
      defaultId: contact.defaultShippingAddress?.id ?? null,
      more: pagination.hasNextPage,
    };
    const name = `${contact.firstName} ${contact.lastName}`.trim() || contact.primaryEmail.email;
    const context = { ...owner, csrf: request.browser.csrf };
    return sendPage(reply, 200, page(name, contactBody(site, contact, orders, book), context));
  });
};
