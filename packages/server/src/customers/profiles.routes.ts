import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { ListProfilesQuery, ProfileIdsParams, ProfilePage, ProfilesById } from './profiles.schemas.ts';
import { getProfiles, listProfiles } from './profiles.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof getProfiles>[0] & Parameters<typeof listProfiles>[0] & { baseUrl: string };

/** website.profiles implies it (shared/scopes.ts effectiveScopes). */
const READ = { scope: 'website.profiles.read' };
const tags = ['Profiles'];
const PATH = '/1.0/profiles';

/** /1.0/profiles: the customers of the website, one per buyer e-mail (platform-surface 2.3). */
export const profilesRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List profiles',
        description:
          'At most 50 profiles a page, ordered by sortField (createdOn, id, email or lastName; id by default) ' +
          'then id, in sortDirection (asc, or dsc by default), with cursor pagination. The cursor carries the ' +
          'sort and filters of the first request and takes no other parameter.',
        querystring: ListProfilesQuery,
        response: { 200: ProfilePage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => listProfiles(deps, websiteOf(request), request.query, `${deps.baseUrl}${PATH}`),
  );

  app.get(
    `${PATH}/:profileIdCsvs`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get profiles by id',
        description:
          'In the order asked. More than 50 ids: 400. Any id not found or of another website: 404.',
        params: ProfileIdsParams,
        response: { 200: ProfilesById, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const ids = request.params.profileIdCsvs.split(',').map((id) => id.trim());
      return { profiles: await getProfiles(deps, websiteOf(request), ids) };
    },
  );
};
