import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { parseJsonBody } from '../http/json-body.ts';
import { contactPage, listRequest, queryRequest } from './contacts-query.ts';
import {
  ContactEnvelope,
  ContactPage,
  ContactParams,
  ContactQueryBody,
  CreateContactBody,
  PageQuery,
  PatchContactBody,
} from './contacts.schemas.ts';
import { createContact, deleteContact, getContact, patchContact } from './contacts.service.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof contactPage>[0] &
  Parameters<typeof createContact>[0] &
  Parameters<typeof deleteContact>[0] &
  Parameters<typeof getContact>[0] &
  Parameters<typeof patchContact>[0];

/**
 * Reads: website.contacts.read (implied by website.contacts); writes: website.contacts. An OAuth
 * token's website.profiles[.read] does as well, an API key's not (platform-surface 0.7, section 1
 * rows 36 and 37: "OAuth only").
 */
export const READ = { scope: 'website.contacts.read', oauthScope: 'website.profiles.read' };
export const WRITE = { scope: 'website.contacts', oauthScope: 'website.profiles' };
export const tags = ['Contacts'];
const PATH = '/v1/contacts';

/** /v1/contacts (platform-surface 2.6): the people of the website, the same ones as /1.0/profiles. */
export const contactsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  // PATCH is a JSON merge patch (RFC 7396); plain JSON is taken too.
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, parseJsonBody);

  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List contacts',
        description:
          'pageSize contacts a page (1 to 1000, default 50; 0 is the default), oldest first, with cursor ' +
          'pagination. The cursor may come with a pageSize; it also continues a query.',
        querystring: PageQuery,
        response: { 200: ContactPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => contactPage(deps, websiteOf(request), listRequest(request.query)),
  );

  app.post(
    `${PATH}/query`,
    {
      config: READ,
      // An empty body is the query of everything.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Query contacts',
        description:
          'Filters, a search in names and e-mail, and a sort (createdOn ascending by default). A cursor ' +
          'carries the query: send it alone, or with the same query.',
        body: ContactQueryBody,
        response: { 200: ContactPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => contactPage(deps, websiteOf(request), queryRequest(request.body)),
  );

  app.get(
    `${PATH}/:contactId`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get a contact',
        params: ContactParams,
        response: { 200: ContactEnvelope, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => ({ contact: await getContact(deps, websiteOf(request), request.params.contactId) }),
  );

  app.post(
    PATH,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Create a contact',
        description: 'A contact with the same e-mail in any case already existing: 409.',
        body: CreateContactBody,
        response: { 201: ContactEnvelope, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const contact = await createContact(deps, websiteOf(request), request.body);
      return reply.code(201).send({ contact });
    },
  );

  app.patch(
    `${PATH}/:contactId`,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Update a contact',
        description:
          'A JSON merge patch (application/merge-patch+json): a field left out is kept; locale null clears ' +
          "it. Another contact's e-mail: 409.",
        params: ContactParams,
        body: PatchContactBody,
        response: { 200: ContactEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => ({
      contact: await patchContact(deps, websiteOf(request), request.params.contactId, request.body),
    }),
  );

  app.delete(
    `${PATH}/:contactId`,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Delete a contact',
        description: 'With its address book. Its orders keep their customerId.',
        params: ContactParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteContact(deps, websiteOf(request), request.params.contactId);
      return reply.code(204).send(null);
    },
  );
};
