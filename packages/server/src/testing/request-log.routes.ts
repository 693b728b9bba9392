import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listRequests, MAX_LIMIT, requestById, type LoggedRequest } from '../api-log/requests.service.ts';
import { errorResponses } from '../http/common.schemas.ts';
import type { Db } from '../db/database.ts';
import { NotFound } from '../shared/errors.ts';
import { findWebsite } from '../sites/websites.repo.ts';

const CONTROLS_PREFIX = '/_emporium';
const tags = ['Test controls'];
const security = [{ operator: [] }];

const WebsiteParams = Type.Object({ websiteId: Type.String({ maxLength: 64 }) });
const RequestParams = Type.Object({
  websiteId: Type.String({ maxLength: 64 }),
  requestId: Type.String({ maxLength: 20 }),
});

const RequestsQuery = Type.Object({
  app: Type.Optional(
    Type.String({ maxLength: 64, description: 'An OAuth client’s requests (its client id).' }),
  ),
  apiKey: Type.Optional(Type.String({ maxLength: 64, description: 'An API key’s requests (its id).' })),
  status: Type.Optional(
    Type.Union([Type.Literal('2xx'), Type.Literal('3xx'), Type.Literal('4xx'), Type.Literal('5xx')], {
      description: 'A class of statuses.',
    }),
  ),
  path: Type.Optional(Type.String({ maxLength: 2048, description: 'Paths that start with this.' })),
  contextId: Type.Optional(Type.String({ maxLength: 128, description: 'The request of this contextId.' })),
  limit: Type.Optional(
    Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: `At most ${MAX_LIMIT}; 50 by default.` }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `next` of the page before.' })),
});

const nullableText = Type.Union([Type.String(), Type.Null()]);

const LoggedRequestBody = Type.Object({
  id: Type.String(),
  websiteId: Type.String(),
  at: Type.String({ description: 'When it was answered, in the website’s time (ISO 8601).' }),
  method: Type.String(),
  path: Type.String({ description: 'Path and query.' }),
  status: Type.Integer(),
  latencyMs: Type.Number(),
  contextId: Type.String({ description: 'The request id: the contextId of its error body.' }),
  credential: Type.Object({
    kind: Type.Union([Type.Literal('api_key'), Type.Literal('oauth')]),
    id: Type.String({ description: 'The API key’s id, or the OAuth client’s id.' }),
    name: nullableText,
  }),
  fault: Type.Union([Type.String({ description: 'The injected fault it met.' }), Type.Null()]),
  requestBody: nullableText,
  requestBodyCut: Type.Boolean({ description: 'The body was longer than the 16 KB kept.' }),
  responseBody: nullableText,
  responseBodyCut: Type.Boolean(),
});

const RequestsPage = Type.Object({
  requests: Type.Array(LoggedRequestBody),
  next: Type.Optional(Type.String({ description: 'The cursor of the next (older) page.' })),
});

/** A logged request as the test controls answer it. */
export function showRequest(request: LoggedRequest) {
  return { ...request, at: request.at.toISOString() };
}

/**
 * A website's request log (api-log/) over HTTP, among the test controls (controls.routes.ts
 * registers it inside its operator-token check): what an app sent and what it was answered.
 */
export const requestLogRoutes: FastifyPluginAsyncTypebox<{ deps: { db: Db } }> = async (app, { deps }) => {
  const knownWebsite = async (websiteId: string) => {
    if (!(await findWebsite(deps.db, websiteId))) throw new NotFound(`website not found: ${websiteId}`);
    // The lines this instance holds are written first, so a test reads what it just sent.
    await app.apiLog?.flush();
  };

  app.get(
    `${CONTROLS_PREFIX}/websites/:websiteId/requests`,
    {
      schema: {
        tags,
        security,
        summary: 'A site’s request log',
        description:
          'The API and token requests made to the website, newest first: method, path, status, latency, the ' +
          'credential (API key or app) and the bodies, secrets removed and each cut at 16 KB. Kept 7 days or ' +
          '100,000 requests.',
        params: WebsiteParams,
        querystring: RequestsQuery,
        response: { 200: RequestsPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { websiteId } = request.params;
      await knownWebsite(websiteId);
      const { apiKey, status, limit, ...filter } = request.query;
      const page = await listRequests(deps.db, websiteId, {
        ...filter,
        apiKeyId: apiKey,
        statusClass: status,
        limit: limit === undefined ? undefined : Number(limit),
      });
      return { ...page, requests: page.requests.map(showRequest) };
    },
  );

  app.get(
    `${CONTROLS_PREFIX}/websites/:websiteId/requests/:requestId`,
    {
      schema: {
        tags,
        security,
        summary: 'One logged request',
        description: 'One request of the website’s log, whole.',
        params: RequestParams,
        response: { 200: LoggedRequestBody, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { websiteId, requestId } = request.params;
      await knownWebsite(websiteId);
      const found = await requestById(deps.db, websiteId, requestId);
      if (!found) throw new NotFound(`request not found: ${requestId}`);
      return showRequest(found);
    },
  );
};
