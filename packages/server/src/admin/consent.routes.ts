import type { FastifyPluginAsync } from 'fastify';
import { Forbidden } from '../shared/errors.ts';
import { checkAuthorizeRequest, withParams, type AuthorizeQuery } from '../oauth/authorize.ts';
import {
  answerAuthorizationRequest,
  claimPendingRequest,
  saveAuthorizationRequest,
} from '../oauth/authorization-requests.ts';
import { consentClient } from '../oauth/clients.service.ts';
import { issueCode } from '../oauth/codes.ts';
import { SCOPE_DESCRIPTIONS, isScope } from '../shared/scopes.ts';
import { requireCsrf } from './session.ts';
import { html } from '../pages/html.ts';
import { page, sendPage } from './layout.ts';
import { ownedWebsites } from '../sites/websites.service.ts';
import { ownerOf } from './owner.ts';
import { iconPath } from './developers/developer-apps.routes.ts';
import type { AdminDeps } from './admin-deps.ts';
import { notice } from '../pages/notice.ts';
import { field } from '../pages/forms.ts';

export const AUTHORIZE_PATH = '/api/1/login/oauth/provider/authorize';
export const CONSENT_PATH = '/api/1/login/oauth/provider/consent';

export const adminConsentRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get(AUTHORIZE_PATH, async (request, reply) => {
    const outcome = await checkAuthorizeRequest(deps.db, request.query as AuthorizeQuery);
    if (!outcome.ok && 'page' in outcome) {
      return sendPage(reply, 400, page('This link cannot be used', notice(outcome.page)));
    }
    if (!outcome.ok) {
      const params = { error: outcome.error, error_description: outcome.description };
      return reply.redirect(
        withParams(outcome.redirectUri, outcome.state ? { ...params, state: outcome.state } : params),
        303,
      );
    }
    const id = await saveAuthorizationRequest(deps, outcome.request);
    const consent = `${CONSENT_PATH}?request=${id}`;
    return reply.redirect(
      request.browser.owner ? consent : `/login?next=${encodeURIComponent(consent)}`,
      303,
    );
  });

  app.get(CONSENT_PATH, async (request, reply) => {
    const requestId = String((request.query as Record<string, unknown>).request ?? '');
    if (!request.browser.owner) return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
    const owner = ownerOf(request);
    const pending = await claimPendingRequest(deps, requestId, owner.id);
    const client = await consentClient(deps.db, pending.client_id);
    const sites = (await ownedWebsites(deps.db, owner.id)).filter(
      (site) => pending.website_id === null || site.id === pending.website_id,
    );
    const context = { ...owner, csrf: request.browser.csrf };
    const title = `Connect ${client.name}`;
    if (sites.length === 0) {
      const message = pending.website_id
        ? `${client.name} asked for a site that is not one of yours.`
        : 'You have no site to connect yet.';
      return sendPage(
        reply,
        403,
        page(
          title,
          html`${notice(message)}
            <p><a href="/sites">Your sites</a></p>`,
          context,
        ),
      );
    }
    const host = new URL(pending.redirect_uri).host;
    const picker =
      sites.length === 1
        ? html`<p>Site: <strong>${sites[0]!.title}</strong></p>
            <input type="hidden" name="website_id" value="${sites[0]!.id}" />`
        : html`<fieldset>
            <legend>Which site?</legend>
            ${sites.map(
              (site, i) =>
                html`<label
                  ><input
                    type="radio"
                    name="website_id"
                    value="${site.id}"
                    ${i === 0 ? html`checked` : ''}
                    required
                  />
                  ${site.title}</label
                >`,
            )}
          </fieldset>`;
    const body = html`<div class="app">
        ${
          client.icon_type
            ? html`<img class="icon" src="${iconPath(client.id)}" alt="" width="48" height="48" />`
            : html`<div class="avatar" aria-hidden="true">${client.name.slice(0, 1).toUpperCase()}</div>`
        }
        <p>
          <strong>${client.name}</strong> wants access to your site. You will return to
          <strong>${host}</strong>.
        </p>
      </div>
      <form class="stack" method="post" action="${CONSENT_PATH}">
        <input type="hidden" name="csrf" value="${request.browser.csrf}" />
        <input type="hidden" name="request" value="${pending.id}" />
        ${picker}
        <p>It will be able to:</p>
        <ul class="scopes">
          ${pending.scopes.filter(isScope).map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`)}
        </ul>
        ${pending.offline ? html`<p class="meta">It keeps this access until you revoke it.</p>` : html`<p class="meta">For 30 minutes.</p>`}
        <div class="actions">
          <button name="decision" value="allow">Allow</button
          ><button class="secondary" name="decision" value="deny">Deny</button>
        </div>
      </form>`;
    return sendPage(reply, 200, page(title, body, context));
  });

  app.post(
    CONSENT_PATH,
    // Answers count like sign-in attempts: a person answers a few a minute at most.
    { config: { rateLimit: { max: deps.signInPerMinute, timeWindow: 60_000 } } },
    async (request, reply) => {
      if (!request.browser.owner) throw new Forbidden('Sign in to answer this request.');
      const owner = ownerOf(request);
      requireCsrf(deps, request);
      const pending = await claimPendingRequest(deps, field(request.body, 'request'), owner.id);
      const allow = field(request.body, 'decision') === 'allow';
      let websiteId = pending.website_id;
      if (allow) {
        const chosen = field(request.body, 'website_id');
        const sites = await ownedWebsites(deps.db, owner.id);
        if (!sites.some((site) => site.id === chosen) || (websiteId !== null && chosen !== websiteId)) {
          throw new Forbidden('That site is not one you can connect here.');
        }
        websiteId = chosen;
      }
      await answerAuthorizationRequest(deps, pending.id);
      if (!allow) return reply.redirect(withParams(pending.redirect_uri, { error: 'access_denied' }), 303);
      const code = await issueCode(deps, {
        clientId: pending.client_id,
        websiteId: websiteId!,
        ownerId: owner.id,
        scopes: pending.scopes.filter(isScope),
        offline: pending.offline,
        redirectUri: pending.redirect_uri,
        codeChallenge: pending.code_challenge,
        ip: request.ip,
      });
      return reply.redirect(withParams(pending.redirect_uri, { code, state: pending.state }), 303);
    },
  );
};
