import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emailJson, listEmails } from '../emails/emails.read.ts';
import { errorResponses } from '../http/common.schemas.ts';
import type { Db } from '../db/database.ts';
import { NotFound } from '../shared/errors.ts';
import { findWebsite } from '../sites/websites.repo.ts';

const CONTROLS_PREFIX = '/_emporium';
const tags = ['Test controls'];
const security = [{ operator: [] }];

const WebsiteParams = Type.Object({ websiteId: Type.String({ maxLength: 64 }) });

const Kind = Type.Union([
  Type.Literal('order_confirmation'),
  Type.Literal('shipping_notice'),
  Type.Literal('cancellation_notice'),
  Type.Literal('refund_notice'),
]);

const EmailsQuery = Type.Object({
  kind: Type.Optional(Kind),
  to: Type.Optional(Type.String({ maxLength: 320, description: 'The recipient, whatever its case.' })),
  orderId: Type.Optional(Type.String({ maxLength: 64, description: 'The e-mails about this order.' })),
});

const nullableText = Type.Union([Type.String(), Type.Null()]);

const EmailBody = Type.Object({
  id: Type.String(),
  websiteId: Type.String(),
  kind: Kind,
  orderId: nullableText,
  to: Type.String(),
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  createdOn: Type.String({ description: 'When it was written, in the website’s time (ISO 8601).' }),
  status: Type.Union(
    [Type.Literal('NOT_SENT'), Type.Literal('PENDING'), Type.Literal('SENT'), Type.Literal('FAILED')],
    { description: 'Its SMTP delivery: NOT_SENT when no SMTP server is configured (SMTP_URL).' },
  ),
  attempts: Type.Integer({ description: 'SMTP attempts made.' }),
  lastError: Type.Union([Type.String({ description: 'Why the last failed attempt failed.' }), Type.Null()]),
  sentOn: Type.Union([Type.String({ description: 'When the SMTP server took it.' }), Type.Null()]),
});

const EmailsPage = Type.Object({ emails: Type.Array(EmailBody) });

/**
 * The e-mails a website's store sent its shoppers (emails/), among the test controls
 * (controls.routes.ts registers it inside its operator-token check), so an app's tests can
 * assert what a buyer was told.
 */
export const emailsRoutes: FastifyPluginAsyncTypebox<{ deps: { db: Db } }> = async (app, { deps }) => {
  app.get(
    `${CONTROLS_PREFIX}/websites/:websiteId/emails`,
    {
      schema: {
        tags,
        security,
        summary: 'The e-mails a site sent',
        description:
          'The order confirmations, shipping notices and cancellation notices the store wrote to its ' +
          'shoppers, oldest first (at most 1,000), each in HTML and text with its SMTP status. Written in ' +
          'the transaction of the change they tell of: a change that failed wrote none.',
        params: WebsiteParams,
        querystring: EmailsQuery,
        response: { 200: EmailsPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { websiteId } = request.params;
      if (!(await findWebsite(deps.db, websiteId))) throw new NotFound(`website not found: ${websiteId}`);
      const emails = await listEmails(deps.db, websiteId, request.query, { limit: 1000 });
      return { emails: emails.map(emailJson) };
    },
  );
};
