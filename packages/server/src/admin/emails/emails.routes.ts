import type { FastifyPluginAsync } from 'fastify';
import type { EmailsTable } from '../../db/emails-schema.ts';
import { findEmail, listEmails } from '../../emails/emails.read.ts';
import { html } from '../../pages/html.ts';
import { NotFound } from '../../shared/errors.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { listTable, page, sendPage, when } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';

const KIND_WORDS: Record<EmailsTable['kind'], string> = {
  order_confirmation: 'Order confirmation',
  shipping_notice: 'Shipping notice',
  cancellation_notice: 'Cancellation notice',
  refund_notice: 'Refund notice',
};

const STATUS_WORDS: Record<EmailsTable['status'], string> = {
  NOT_SENT: 'Kept (no SMTP server)',
  PENDING: 'Sending',
  SENT: 'Sent',
  FAILED: 'Failed',
};

/** The newest e-mails a page lists. */
const PAGE_SIZE = 200;

/**
 * /sites/:websiteId/emails: what the store sent its shoppers, newest first; /sites/:websiteId/emails/:id
 * one e-mail as the shopper would see it. The site's owner only (ownedWebsite).
 */
export const adminEmailsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/emails', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const emails = await listEmails(deps.db, site.id, {}, { limit: PAGE_SIZE, newestFirst: true });
    const rows = emails.map(
      (email) =>
        html`<tr>
          <td><a href="/sites/${site.id}/emails/${email.id}">${when(email.created_on)}</a></td>
          <td>${KIND_WORDS[email.kind]}</td>
          <td>${email.to_address}</td>
          <td>${email.subject}</td>
          <td>${STATUS_WORDS[email.status]}</td>
        </tr>`,
    );
    const body = html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
      <p>
        The e-mails the store sent its shoppers: order confirmations, shipping and cancellation notices.
        Without an SMTP server (SMTP_URL) they are kept here only.
      </p>
      ${
        rows.length
          ? listTable('E-mails', ['When', 'Kind', 'To', 'Subject', 'Status'], rows)
          : html`<p>No e-mails yet.</p>`
      }`;
    const context = { ...owner, csrf: request.browser.csrf, wide: true };
    return sendPage(reply, 200, page(`E-mails of ${site.title}`, body, context));
  });

  app.get('/sites/:websiteId/emails/:emailId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, emailId } = request.params as { websiteId: string; emailId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const email = await findEmail(deps.db, site.id, emailId);
    if (!email) throw new NotFound('There is no such e-mail on this site.');
    // The e-mail's HTML is shown in a frame with no rights at all (sandbox without allow-*): no
    // script, no form, no navigation of this page, in an origin of its own. It is loaded from
    // its own address (below), whose policy lets the e-mail's inline styles apply, as a mail
    // reader would show them, where this page's policy would strip them.
    const body = html`<p><a href="/sites/${site.id}/emails">Back to the e-mails</a></p>
      <dl>
        <dt>Kind</dt>
        <dd>${KIND_WORDS[email.kind]}</dd>
        <dt>To</dt>
        <dd>${email.to_address}</dd>
        <dt>Subject</dt>
        <dd>${email.subject}</dd>
        <dt>Written</dt>
        <dd>${when(email.created_on)}</dd>
        <dt>Status</dt>
        <dd>
          ${STATUS_WORDS[email.status]}${email.attempts ? ` after ${email.attempts} attempt(s)` : ''}${
            email.sent_on ? html`, ${when(email.sent_on)}` : ''
          }
        </dd>
        ${
          email.last_error
            ? html`<dt>Last error</dt>
                <dd>${email.last_error}</dd>`
            : ''
        }
        ${
          email.order_id
            ? html`<dt>Order</dt>
                <dd><a href="/sites/${site.id}/orders/${email.order_id}">Open the order</a></dd>`
            : ''
        }
      </dl>
      <h2>HTML</h2>
      <iframe
        title="The e-mail as HTML"
        sandbox
        src="/sites/${site.id}/emails/${email.id}/html"
        class="email"
      ></iframe>
      <h2>Text</h2>
      <pre class="email">${email.text}</pre>`;
    const context = { ...owner, csrf: request.browser.csrf };
    return sendPage(reply, 200, page(email.subject, body, context));
  });

  /**
   * The e-mail's HTML alone, for the frame of the page above: styles inline as e-mails have
   * them, nothing else (no script, no request to anywhere but pictures), sandboxed, and framed
   * only by this site's own pages.
   */
  app.get('/sites/:websiteId/emails/:emailId/html', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, emailId } = request.params as { websiteId: string; emailId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const email = await findEmail(deps.db, site.id, emailId);
    if (!email) throw new NotFound('There is no such e-mail on this site.');
    return reply
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; sandbox; frame-ancestors 'self'",
      )
      .header('x-frame-options', 'SAMEORIGIN')
      .type('text/html; charset=utf-8')
      .send(email.html);
  });
};
