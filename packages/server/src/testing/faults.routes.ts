import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.ts';
import {
  addFault,
  clearFaults,
  FAULT_STATUSES,
  listFaults,
  removeFault,
  type FaultDeps,
} from '../faults/faults.service.ts';
import { CONTROLS_PREFIX } from './controls.routes.ts';

const tags = ['Test controls'];
const security = [{ operator: [] }];

const WebsiteParams = Type.Object({ websiteId: Type.String({ maxLength: 64 }) });
const FaultParams = Type.Object({
  websiteId: Type.String({ maxLength: 64 }),
  faultId: Type.String({ maxLength: 64 }),
});

const FaultBody = Type.Object(
  {
    match: Type.String({
      maxLength: 320,
      description:
        'A method and a path pattern, or a path pattern alone for any method: `POST /1.0/commerce/orders*`. `*` ' +
        'matches any run of characters; the pattern must be able to match an API path.',
    }),
    status: Type.Optional(
      Type.Integer({
        description: `Answer with this status (${FAULT_STATUSES.join(', ')}) in the API’s error body.`,
      }),
    ),
    retryAfter: Type.Optional(
      Type.Integer({ description: 'With status 429: the Retry-After seconds (1 by default).' }),
    ),
    latency: Type.Optional(
      Type.Union([Type.Integer(), Type.String({ maxLength: 20 })], {
        description:
          'Wait this many ms (800), or a number drawn from a range (`200..900`), then answer as usual.',
      }),
    ),
    reset: Type.Optional(Type.Boolean({ description: 'Close the connection without an answer.' })),
    slowBody: Type.Optional(
      Type.Integer({ description: 'Send the real answer in small chunks over this many ms.' }),
    ),
    probability: Type.Optional(
      Type.Number({ description: 'The share of matching requests picked, 0..1 (1 by default).' }),
    ),
    seed: Type.Optional(
      Type.Integer({
        description: 'The seed of the rule’s random numbers, to replay a run (a random one by default).',
      }),
    ),
    count: Type.Optional(Type.Integer({ description: 'Only the first `count` faults.' })),
    until: Type.Optional(
      Type.String({ maxLength: 40, description: 'Until this time of the site (RFC 3339).' }),
    ),
    app: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only this app’s requests (its client id).' }),
    ),
    apiKey: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only the requests with this API key (its id).' }),
    ),
  },
  { additionalProperties: false },
);

const Fault = Type.Object({
  id: Type.String(),
  websiteId: Type.String(),
  match: Type.String(),
  effect: Type.Union([
    Type.Literal('status'),
    Type.Literal('latency'),
    Type.Literal('reset'),
    Type.Literal('slow_body'),
  ]),
  status: Type.Union([Type.Integer(), Type.Null()]),
  retryAfter: Type.Union([Type.Integer(), Type.Null()]),
  latency: Type.Union([Type.Object({ minMs: Type.Integer(), maxMs: Type.Integer() }), Type.Null()]),
  slowBodyMs: Type.Union([Type.Integer(), Type.Null()]),
  probability: Type.Number(),
  seed: Type.Integer(),
  count: Type.Union([Type.Integer(), Type.Null()]),
  remaining: Type.Union([Type.Integer(), Type.Null()]),
  until: Type.Union([Type.String(), Type.Null()]),
  app: Type.Union([Type.String(), Type.Null()]),
  apiKey: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

const Removed = Type.Object({ removed: Type.Integer() });

/**
 * Injected faults over HTTP (faults/): a website's rules added, listed and removed. Registered
 * inside the test controls, so the operator token is asked for; each change is a security event
 * of the site.
 */
export const faultsRoutes: FastifyPluginAsyncTypebox<{ deps: FaultDeps }> = async (app, { deps }) => {
  const path = `${CONTROLS_PREFIX}/websites/:websiteId/faults`;

  app.post(
    path,
    {
      schema: {
        tags,
        security,
        summary: 'Inject a fault',
        description:
          'Adds a rule that makes the website’s API requests matching it fail: a status in the API’s error body, ' +
          'added latency, a reset connection or a slowly sent body (docs/testing-your-app.md, "When things go wrong"). ' +
          'Optionally for one app or API key, with a probability and seed, for a count or until a time of the site.',
        params: WebsiteParams,
        body: FaultBody,
        response: { 201: Fault, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const fault = await addFault(deps, request.params.websiteId, request.body, 'http');
      return reply.code(201).send(fault);
    },
  );

  app.get(
    path,
    {
      schema: {
        tags,
        security,
        summary: 'A site’s injected faults',
        description: 'The website’s fault rules, oldest first, with what remains of their counts.',
        params: WebsiteParams,
        response: { 200: Type.Object({ faults: Type.Array(Fault) }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ faults: await listFaults(deps, request.params.websiteId) }),
  );

  app.delete(
    path,
    {
      schema: {
        tags,
        security,
        summary: 'Remove every injected fault of a site',
        params: WebsiteParams,
        response: { 200: Removed, ...errorResponses(401, 404) },
      },
    },
    async (request) => clearFaults(deps, request.params.websiteId, 'http'),
  );

  app.delete(
    `${path}/:faultId`,
    {
      schema: {
        tags,
        security,
        summary: 'Remove one injected fault',
        params: FaultParams,
        response: { 200: Removed, ...errorResponses(401, 404) },
      },
    },
    async (request) => removeFault(deps, request.params.websiteId, request.params.faultId, 'http'),
  );
};
