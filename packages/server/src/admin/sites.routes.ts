import type { FastifyPluginAsync } from 'fastify';
import { recentSignIns, websiteAuditEvents } from '../sites/audit.ts';
import { describeDuration } from '../shared/duration.ts';
import { DomainError } from '../shared/errors.ts';
import { listConnectedApps } from '../oauth/connected-apps.ts';
import { revokeAccess } from '../oauth/revocation.ts';
import { SCOPE_DESCRIPTIONS, isScope } from '../shared/scopes.ts';
import { storePageLinks } from '../sites/store-pages.repo.ts';
import { createStorePage } from '../sites/store-pages.service.ts';
import { siteDashboard } from '../analytics/dashboard.service.ts';
import { createWebsite, ownedWebsite, ownedWebsites } from '../sites/websites.service.ts';
import { dashboardBody } from './dashboard.views.ts';
import { requireCsrf } from './session.ts';
import { html, type Html } from '../pages/html.ts';
import { page, sendPage, tableBox, when } from './layout.ts';
import { ownerOf } from './owner.ts';
import type { AdminDeps } from './admin-deps.ts';
import { notice } from '../pages/notice.ts';
import { field } from '../pages/forms.ts';

const AUDIT_WORDS: Record<string, string> = {
  grant: 'An app was allowed',
  revocation: 'An app was revoked',
  code_replay: 'An authorization code was used twice; the app’s tokens were revoked',
  refresh_replay: 'An old refresh token was used again; the app’s tokens were revoked',
  login: 'Signed in',
  login_failed: 'A sign-in failed',
  test_control: 'A test control acted on the site',
};

/**
 * Said on the site's page while its clock runs ahead of the service's (testing/site-clock.ts), so
 * an owner reading dates on it knows why they are in the future.
 */
function shiftedClock(site: { clock_shift_ms: number }, siteNow: Date): Html {
  if (site.clock_shift_ms === 0) return html``;
  return notice(
    `This site’s clock runs ${describeDuration(site.clock_shift_ms)} ahead of real time (a test clock): ` +
      `its time is now ${siteNow.toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
    'info',
  );
}

function newSiteForm(csrf: string, error?: string): Html {
  return html`<h2>Add a site</h2>
    ${notice(error)}
    <form class="stack" method="post" action="/sites">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label>Title <input type="text" name="title" maxlength="200" required /></label>
      <label
        >Currency <input type="text" name="currency" value="USD" pattern="[A-Za-z]{3}" maxlength="3" required
      /></label>
      <label
        >Measurement standard
        <select name="measurementStandard">
          <option value="IMPERIAL">Imperial (lb, in)</option>
          <option value="METRIC">Metric (kg, cm)</option>
        </select>
      </label>
      <div class="actions"><button>Add site</button></div>
    </form>`;
}

export const adminSitesRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/', async (_request, reply) => reply.redirect('/sites', 303));

  app.get('/sites', async (request, reply) => {
    const owner = ownerOf(request);
    const sites = await ownedWebsites(deps.db, owner.id);
    const list = sites.length
      ? sites.map(
          (site) =>
            html`<div class="card">
              <h3><a href="/sites/${site.id}">${site.title}</a></h3>
              <p class="meta">
                ${site.currency} · ${site.measurement_standard === 'METRIC' ? 'Metric' : 'Imperial'} · id
                ${site.id}
              </p>
            </div>`,
        )
      : html`<p>You have no site yet.</p>`;
    const signIns = await recentSignIns(deps.db, owner.id);
    const recent = html`<h2>Recent sign-ins to your account</h2>
      ${tableBox(
        'Recent sign-ins',
        html`<table>
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            ${signIns.map(
              (event) =>
                html`<tr>
                  <td>${when(event.at)}</td>
                  <td>${AUDIT_WORDS[event.kind]}</td>
                  <td>${event.ip ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )}`;
    return sendPage(
      reply,
      200,
      page('Your sites', html`${list}${newSiteForm(request.browser.csrf)}${recent}`, {
        ...owner,
        csrf: request.browser.csrf,
      }),
    );
  });

  app.post('/sites', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    try {
      const { websiteId } = await createWebsite(deps, {
        ownerEmail: owner.email,
        title: field(request.body, 'title'),
        currency: field(request.body, 'currency'),
        measurementStandard: field(request.body, 'measurementStandard'),
      });
      return reply.redirect(`/sites/${websiteId}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const sites = await ownedWebsites(deps.db, owner.id);
      const list = sites.map((site) => html`<p><a href="/sites/${site.id}">${site.title}</a></p>`);
      const body = html`${list}${newSiteForm(request.browser.csrf, error.message)}`;
      return sendPage(
        reply,
        error.status,
        page('Your sites', body, { ...owner, csrf: request.browser.csrf }),
      );
    }
  });

  app.get('/sites/:websiteId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    // Tokens expire in the service's time, as every OAuth time.
    const apps = await listConnectedApps(deps.db, site.id, deps.clock.now());
    const dashboard = await siteDashboard(deps, site);
    const events = await websiteAuditEvents(deps.db, site.id);
    const csrf = request.browser.csrf;
    const appCards = apps.length
      ? apps.map(
          (connected) =>
            html`<div class="card">
              <h3>${connected.name}</h3>
              <p class="meta">
                Allowed ${when(connected.grantedAt)} · last used ${when(connected.lastUsedAt)}
              </p>
              <ul class="scopes">
                ${connected.scopes.filter(isScope).map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`)}
              </ul>
              <form method="post" action="/sites/${site.id}/apps/${connected.clientId}/revoke">
                <input type="hidden" name="csrf" value="${csrf}" />
                <button class="danger">Revoke ${connected.name}</button>
              </form>
            </div>`,
        )
      : html`<p>No app holds access to this site.</p>`;
    const log = events.length
      ? tableBox(
          'Security events',
          html`<table>
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>App</th>
              </tr>
            </thead>
            <tbody>
              ${events.map(
                (event) =>
                  html`<tr>
                    <td>${when(event.at)}</td>
                    <td>${AUDIT_WORDS[event.kind] ?? event.kind}</td>
                    <td>${event.clientName ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )
      : html`<p>Nothing yet.</p>`;
    const pages = await storePageLinks(deps.db, site.id);
    const body = html`<p class="meta">${site.currency} · id ${site.id}</p>
      ${shiftedClock(site, deps.clock.now(site.id))}
      <p>
        <a href="/sites/${site.id}/products">Products</a> · <a href="/sites/${site.id}/orders">Orders</a> ·
        <a href="/sites/${site.id}/emails">E-mails</a> · <a href="/sites/${site.id}/contacts">Contacts</a> ·
        <a href="/sites/${site.id}/discounts">Discounts</a> ·
        <a href="/sites/${site.id}/gift-cards">Gift cards</a> ·
        <a href="/sites/${site.id}/keys">API keys</a> ·
        <a href="/sites/${site.id}/extensions">Extensions</a> ·
        <a href="/sites/${site.id}/webhooks">Webhooks</a> · <a href="/sites/${site.id}/api-log">API log</a> ·
        <a href="/sites/${site.id}/faults">Faults</a>
      </p>
      ${dashboardBody(site, dashboard)}
      <h2>Store pages</h2>
      <ul>
        ${pages.map((storePage) => html`<li>${storePage.title} <span class="meta">/${storePage.url_slug}</span></li>`)}
      </ul>
      <form class="stack" method="post" action="/sites/${site.id}/pages">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label>New store page <input type="text" name="title" maxlength="200" required /></label>
        <div class="actions"><button>Add page</button></div>
      </form>
      <h2>Connected apps</h2>
      ${appCards}
      <h2>Security events</h2>
      ${log}`;
    return sendPage(reply, 200, page(site.title, body, { ...owner, csrf }));
  });

  app.post('/sites/:websiteId/pages', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await createStorePage(deps, { websiteId: site.id, title: field(request.body, 'title') });
    return reply.redirect(`/sites/${site.id}`, 303);
  });

  app.post('/sites/:websiteId/apps/:clientId/revoke', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, clientId } = request.params as { websiteId: string; clientId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await revokeAccess(deps, { websiteId: site.id, clientId, ownerId: owner.id, ip: request.ip });
    return reply.redirect(`/sites/${site.id}`, 303);
  });
};
