import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Forbidden } from '../shared/errors.ts';
import { errorResponses } from '../http/common.schemas.ts';
import type { AccessTokenCredential } from '../http/credential.ts';
import type { DeliveryDeps } from './delivery.ts';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  rotateSecret,
  sendTestNotification,
  updateSubscription,
} from './subscriptions.service.ts';
import { TOPICS } from './topics.ts';

const Subscription = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String(),
  clientId: Type.String({ description: 'The app (OAuth client) the subscription belongs to' }),
  endpointUrl: Type.String(),
  topics: Type.Array(Type.String()),
  createdOn: Type.String(),
  updatedOn: Type.String(),
});
const Secret = Type.String({ description: '64 hex characters; shown only on creation and rotation' });
const Topics = Type.Array(Type.String(), {
  maxItems: 20,
  description: `Any of ${TOPICS.join(', ')}. Order topics need an orders scope, contact and address topics website.contacts, product topics website.products.read. Contact and address topics are sent for changes through the contacts API and for buyers' orders. The product topics are an Emporium extension.`,
});
const EndpointUrl = Type.String({
  description: 'https; resolved at each delivery, which must reach a public address',
});
const Params = Type.Object({ id: Type.String() });
const tags = ['Webhook subscriptions'];

/** The subscription's owner: the app and website of the access token; an API key is refused. */
function tokenOf(request: FastifyRequest): AccessTokenCredential {
  const credential = request.credential;
  if (credential?.kind !== 'access_token') {
    throw new Forbidden(
      'webhook subscriptions need an OAuth access token; API keys are refused',
      'OAUTH_TOKEN_REQUIRED',
    );
  }
  return credential;
}

/** /1.0/webhook_subscriptions (api-details 7): OAuth access tokens only. */
export const subscriptionsRoutes: FastifyPluginAsyncTypebox<{ deps: DeliveryDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', async (request) => {
    tokenOf(request);
  });
  const path = '/1.0/webhook_subscriptions';

  app.post(
    path,
    {
      schema: {
        tags,
        summary: 'Create a webhook subscription',
        description: `At most 25 for each app on a website. Answers the secret that signs the notifications (the Squarespace-Signature header: hex HMAC-SHA256 of the raw body keyed with the hex-decoded secret).`,
        body: Type.Object({ endpointUrl: EndpointUrl, topics: Topics }),
        response: {
          201: Type.Object({ ...Subscription.properties, secret: Secret }),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createSubscription(deps, tokenOf(request), request.body)),
  );

  app.get(
    path,
    {
      schema: {
        tags,
        summary: "List the app's webhook subscriptions on the website",
        response: {
          200: Type.Object({ webhookSubscriptions: Type.Array(Subscription) }),
          ...errorResponses(401, 403, 429),
        },
      },
    },
    async (request) => ({ webhookSubscriptions: await listSubscriptions(deps.db, tokenOf(request)) }),
  );

  app.get(
    `${path}/:id`,
    {
      schema: {
        tags,
        summary: 'Get a webhook subscription',
        params: Params,
        response: { 200: Subscription, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => getSubscription(deps.db, tokenOf(request), request.params.id),
  );

  app.post(
    `${path}/:id`,
    {
      config: { changeWrappers: true },
      schema: {
        tags,
        summary: 'Update a webhook subscription',
        description:
          'Partial update: a field left out is unchanged; each field plain or a {present, value} change-wrapper. The secret stays.',
        params: Params,
        body: Type.Object({ endpointUrl: Type.Optional(EndpointUrl), topics: Type.Optional(Topics) }),
        response: { 200: Subscription, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => updateSubscription(deps, tokenOf(request), request.params.id, request.body),
  );

  app.delete(
    `${path}/:id`,
    {
      schema: {
        tags,
        summary: 'Delete a webhook subscription',
        description: 'Notifications still waiting for it are dropped.',
        params: Params,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteSubscription(deps.db, tokenOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${path}/:id/actions/rotateSecret`,
    {
      schema: {
        tags,
        summary: "Rotate a subscription's secret",
        description: 'Every notification from now on, retries included, is signed with the new secret.',
        params: Params,
        response: { 200: Type.Object({ secret: Secret }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => rotateSecret(deps, tokenOf(request), request.params.id),
  );

  app.post(
    `${path}/:id/actions/sendTestNotification`,
    {
      schema: {
        tags,
        summary: 'Send a test notification',
        description:
          "One signed notification of one of the subscription's topics with sample data, one attempt with a 10 s timeout. `statusCode` is the receiver's; null, with `error` saying why, when none came. The contact and address topics have no test notification (400), as on the platform.",
        params: Params,
        body: Type.Object({ topic: Type.String() }),
        response: {
          200: Type.Object({
            statusCode: Type.Union([Type.Integer(), Type.Null()]),
            error: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => sendTestNotification(deps, tokenOf(request), request.params.id, request.body.topic),
  );
};
