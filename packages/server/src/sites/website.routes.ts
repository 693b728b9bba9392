import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { Unauthorized } from '../shared/errors.ts';
import { memberOf } from './owners.service.ts';
import { getWebsite, websiteResponse } from './websites.service.ts';
import type { Db } from '../db/database.ts';

/** What the handlers read: the website rows and the base URL of its links. */
type RouteDeps = { baseUrl: string; db: Db };

const Nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const Website = Type.Object({
  id: Type.String(),
  siteId: Type.String({ description: 'The site identifier; here the website id' }),
  title: Type.String(),
  url: Type.String(),
  currency: Type.String(),
  language: Type.String(),
  timeZone: Type.String(),
  measurementStandard: Type.Union([Type.Literal('IMPERIAL'), Type.Literal('METRIC')]),
  location: Type.Object(
    {
      country: Nullable('ISO 3166-1 alpha-2; null when the website has no business location'),
      region: Nullable('null when the website has no business location'),
    },
    { description: 'The business location; no website here records one yet, so both are null' },
  ),
});

const Member = Type.Object({
  id: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
});

/** The website the credential belongs to; any valid credential may read it. */
export const websiteRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  for (const version of ['1.0', '1.1']) {
    app.get(
      `/${version}/authorization/website`,
      {
        schema: {
          hide: version === '1.1',
          tags: ['Website'],
          summary: 'The website of the credential',
          response: { 200: Website, ...errorResponses(401, 429) },
        },
      },
      async (request) => websiteResponse(await getWebsite(deps.db, websiteOf(request)), deps.baseUrl),
    );
  }

  app.get(
    '/1.0/authorization/member',
    {
      schema: {
        tags: ['Website'],
        summary: 'The site owner who granted the OAuth token',
        description:
          'Any OAuth access token may read it, whatever its scopes. An API key belongs to no member: 401 OAUTH_TOKEN_REQUIRED.',
        response: { 200: Member, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      if (request.credential?.kind !== 'access_token') {
        throw new Unauthorized(
          'Authorization: this endpoint takes an OAuth access token, not an API key',
          undefined,
          'OAUTH_TOKEN_REQUIRED',
        );
      }
      return memberOf(deps.db, websiteOf(request));
    },
  );
};
