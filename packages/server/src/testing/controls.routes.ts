import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { bearerTokenCheck } from '../http/bearer-token.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { parseDuration } from '../shared/duration.ts';
import { recordAudit } from '../sites/audit.ts';
import { TOPICS } from '../webhooks/topics.ts';
import { exportFixture } from './fixtures/export-fixture.ts';
import { loadFixture, type FixtureDeps } from './fixtures/load-fixture.ts';
import { advanceClock, siteTime, type SiteClockDeps, type SiteTime } from './site-clock.ts';
import { requestLogRoutes } from './request-log.routes.ts';
import { ORDER_UPDATE_ACTIONS } from './trigger-orders.ts';
import { trigger, type TriggerDeps } from './triggers.ts';
import { faultsRoutes } from './faults.routes.ts';
import { emailsRoutes } from './emails.routes.ts';

/** Where the test controls live: apart from the platform's paths, as LocalStack keeps `/_localstack/`. */
export const CONTROLS_PREFIX = '/_emporium';

/** A site of 1,000 products with pictures and orders fits; the API's own bodies stay at 1 MiB. */
const FIXTURE_BODY_BYTES = 16 * 1024 * 1024;

type RouteDeps = TriggerDeps & FixtureDeps & SiteClockDeps;

const tags = ['Test controls'];
const security = [{ operator: [] }];

const WebsiteParams = Type.Object({ websiteId: Type.String({ maxLength: 64 }) });

const SiteTimeBody = Type.Object({
  websiteId: Type.String(),
  now: Type.String({ description: 'The website’s time now (ISO 8601).' }),
  shiftMs: Type.Integer({ description: 'How far it runs ahead of the service’s time.' }),
});

const AdvanceBody = Type.Object(
  {
    by: Type.String({
      maxLength: 40,
      description: 'How far ahead: a number and a unit (ms, s, m, h, d, w), as 48h, 90m or 1d12h.',
    }),
  },
  { additionalProperties: false },
);

const TriggerParams = Type.Object({
  websiteId: Type.String({ maxLength: 64 }),
  topic: Type.String({ maxLength: 64, description: `One of ${TOPICS.join(', ')}.` }),
});

const text = (description: string) => Type.Optional(Type.String({ maxLength: 200, description }));
const TriggerBody = Type.Union([
  Type.Object(
    {
      sku: text('order.create: the variant sold; product.create: the new variant’s SKU.'),
      quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'order.create.' })),
      email: text(
        'order.create, contact.create: the buyer’s or contact’s e-mail; order.update with EMAIL_UPDATED: ' +
          'the order’s new one.',
      ),
      orderId: text(
        'order.update: the order (by default the newest the action can change: PENDING to fulfil or cancel, PAID to ' +
          'refund, FULFILLED to mark pending, any to change its e-mail).',
      ),
      action: text(`order.update: ${ORDER_UPDATE_ACTIONS.join(', ')} (FULFILLED by default).`),
      clientId: text('extension.uninstall: the app (the only one connected by default).'),
      contactId: text('contact.update, contact.delete, address.*: the contact.'),
      addressId: text('address.update, address.delete: the address book entry.'),
      productId: text('product.update, product.delete: the product.'),
      name: text('product.create, product.update: the product’s (new) name.'),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

const Triggered = Type.Object({
  topic: Type.String(),
  websiteId: Type.String(),
  changed: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  notifications: Type.Object({ queued: Type.Integer(), note: Type.Optional(Type.String()) }),
});

const FixtureQuery = Type.Object({
  owner: Type.String({ maxLength: 320, description: 'The e-mail of the owner of the new website.' }),
});

const showTime = (time: SiteTime) => ({
  websiteId: time.websiteId,
  now: time.now.toISOString(),
  shiftMs: time.shiftMs,
});

/**
 * The test controls over HTTP, for an app's tests in another language or process: a site's
 * clock, triggers and fixtures, as the CLI and the harness have them. Registered only when
 * TEST_CONTROLS is on (config.ts); every request bears the operator token, and each action
 * that changes or reads a site is a security event of that site (security TC-1..TC-3).
 */
export const testControlsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps; token: string }> = async (
  app,
  { deps, token },
) => {
  const check = bearerTokenCheck(
    token,
    'emporium test controls',
    'Authorization: the test controls token is required (TEST_CONTROLS_TOKEN, or the one printed at start)',
  );
  app.addHook('onRequest', async (request) => check(request.headers.authorization));
  await app.register(requestLogRoutes, { deps });
  await app.register(emailsRoutes, { deps });
  const audit = (websiteId: string, detail: Record<string, unknown>) =>
    recordAudit(deps, deps.db, { kind: 'test_control', websiteId, detail: { ...detail, via: 'http' } });
  await app.register(faultsRoutes, { deps });

  app.get(
    `${CONTROLS_PREFIX}/websites/:websiteId/clock`,
    {
      schema: {
        tags,
        security,
        summary: 'A site’s time',
        description: 'The website’s time now, and how far its clock runs ahead of the service’s.',
        params: WebsiteParams,
        response: { 200: SiteTimeBody, ...errorResponses(401, 404) },
      },
    },
    async (request) => showTime(await siteTime(deps, request.params.websiteId)),
  );

  app.post(
    `${CONTROLS_PREFIX}/websites/:websiteId/clock/advance`,
    {
      schema: {
        tags,
        security,
        summary: 'Move a site’s clock ahead',
        description:
          'Moves one website’s time ahead, never back (at most ten years in all). Its codes and tokens come that much ' +
          'nearer their expiry, the retries of its notifications that fell due are sent, and what it writes from then ' +
          'on carries the later time. Other websites keep theirs.',
        params: WebsiteParams,
        body: AdvanceBody,
        response: { 200: SiteTimeBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const by = parseDuration(request.body.by, 'by');
      return showTime(await advanceClock(deps, request.params.websiteId, by, 'http'));
    },
  );

  app.post(
    `${CONTROLS_PREFIX}/websites/:websiteId/triggers/:topic`,
    {
      schema: {
        tags,
        security,
        summary: 'Trigger a webhook topic',
        description:
          'Makes the real change behind the topic (docs/triggers.md): an order placed from the site’s stock, an order ' +
          'fulfilled, canceled, refunded, marked pending or given a new e-mail, an app uninstalled, a contact, ' +
          'address or product changed. Its notifications go through the outbox, signed and retried. Options a ' +
          'topic does not take are refused.',
        params: TriggerParams,
        body: TriggerBody,
        response: { 200: Triggered, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const { websiteId, topic } = request.params;
      const triggered = await trigger(deps, topic, { ...(request.body ?? {}), websiteId });
      await audit(websiteId, { action: 'trigger', topic });
      return triggered;
    },
  );

  app.post(
    `${CONTROLS_PREFIX}/fixtures`,
    {
      bodyLimit: FIXTURE_BODY_BYTES,
      schema: {
        tags,
        security,
        summary: 'Load a site fixture',
        description:
          'Creates a whole website from a fixture document (docs/fixtures.md, site-fixture.schema.json) for an ' +
          'existing owner. Pictures are generated ones: files are read only by the CLI and the harness. A fixture ' +
          'with a mistake is refused with the JSON path of the first one, and nothing is written. The API keys and ' +
          'app secrets it made are in the answer, shown this once.',
        querystring: FixtureQuery,
        body: Type.Object({}, { additionalProperties: true }),
        response: { 201: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const loaded = await loadFixture(deps, request.body, { ownerEmail: request.query.owner, files: false });
      await audit(loaded.websiteId, { action: 'fixtures.load' });
      return reply.code(201).send(loaded);
    },
  );

  app.get(
    `${CONTROLS_PREFIX}/websites/:websiteId/fixture`,
    {
      schema: {
        tags,
        security,
        summary: 'Export a site as a fixture',
        description: 'The website as a fixture document, which loads back into the same site (ids aside).',
        params: WebsiteParams,
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const fixture = await exportFixture(deps, request.params.websiteId);
      await audit(request.params.websiteId, { action: 'fixtures.export' });
      return fixture;
    },
  );
};
