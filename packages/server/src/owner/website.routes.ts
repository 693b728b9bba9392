import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ApiDeps } from '../deps.ts';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { getWebsite, websiteResponse } from './websites.service.ts';

const Website = Type.Object({
  id: Type.String(),
  title: Type.String(),
  url: Type.String(),
  currency: Type.String(),
  measurementStandard: Type.String(),
  language: Type.String(),
  timeZone: Type.String(),
});

/** The website the credential belongs to; any valid credential may read it. */
export const websiteRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
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
};
