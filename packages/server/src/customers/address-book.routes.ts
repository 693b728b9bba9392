import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { getEntry, listEntries } from './address-book.read.ts';
import { createEntry, deleteEntry, replaceEntry } from './address-book.service.ts';
import { READ, tags, WRITE } from './contacts.routes.ts';
import {
  AddressBookEntryBody,
  AddressBookEntryEnvelope,
  AddressBookPage,
  ContactParams,
  EntryParams,
  PageQuery,
} from './contacts.schemas.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof createEntry>[0] &
  Parameters<typeof deleteEntry>[0] &
  Parameters<typeof getEntry>[0] &
  Parameters<typeof listEntries>[0] &
  Parameters<typeof replaceEntry>[0];

const BOOK = '/v1/contacts/:contactId/address-book';
const ENTRY = `${BOOK}/:addressBookEntryId`;
const RULES =
  'A book with entries has one default shipping address: the first entry is default whatever it asks; ' +
  'defaultShipping true moves the default, false on the default changes nothing.';

/** A contact's address book (platform-surface 2.6.2). */
export const addressBookRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    BOOK,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List address book entries',
        description:
          'The default first, then oldest first; pageSize 1 to 1000 (default 50; 0 is the default). ' +
          'defaultShippingAddressId is null on a page without the default.',
        params: ContactParams,
        querystring: PageQuery,
        response: { 200: AddressBookPage, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => listEntries(deps, websiteOf(request), request.params.contactId, request.query),
  );

  app.get(
    ENTRY,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get an address book entry',
        params: EntryParams,
        response: { 200: AddressBookEntryEnvelope, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => ({ addressBookEntry: await getEntry(deps, websiteOf(request), request.params) }),
  );

  app.post(
    BOOK,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Create an address book entry',
        description: RULES,
        params: ContactParams,
        body: AddressBookEntryBody,
        response: { 201: AddressBookEntryEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const entry = await createEntry(deps, websiteOf(request), request.params.contactId, request.body);
      return reply.code(201).send({ addressBookEntry: entry });
    },
  );

  app.put(
    ENTRY,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Replace an address book entry',
        description: `The whole address is replaced. ${RULES}`,
        params: EntryParams,
        body: AddressBookEntryBody,
        response: { 200: AddressBookEntryEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      addressBookEntry: await replaceEntry(deps, websiteOf(request), request.params, request.body),
    }),
  );

  app.delete(
    ENTRY,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Delete an address book entry',
        description: 'Deleting the default makes the oldest entry left the default.',
        params: EntryParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteEntry(deps, websiteOf(request), request.params);
      return reply.code(204).send(null);
    },
  );
};
