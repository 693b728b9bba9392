import type { FastifyPluginAsync } from 'fastify';
import { DomainError, ValidationError } from '../../shared/errors.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../shared/scopes.ts';
import { API_KEY_PERMISSIONS } from '../../sites/api-key-scopes.ts';
import { createApiKey, listApiKeys, revokeApiKeyById } from '../../sites/api-keys.service.ts';
import { requireCsrf } from '../session.ts';
import { html, type Html } from '../../pages/html.ts';
import { page, sendPage, tableBox, when } from '../layout.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { notice } from '../../pages/notice.ts';
import { type Form, field } from '../../pages/forms.ts';

const KEY_PERMISSIONS = Object.keys(API_KEY_PERMISSIONS);

/** The chosen scopes of a form: one checkbox a scope, so one or many values. */
function checked(form: unknown): string[] {
  const value = (form as Form | undefined)?.scopes;
  return value === undefined ? [] : [value].flat();
}

/** API keys of one website: create (the key shown this once), list, revoke. */
export const adminApiKeysRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  async function keysPage(ownerId: string, websiteId: string, csrf: string, top: Html): Promise<Html> {
    const site = await ownedWebsite(deps.db, ownerId, websiteId);
    const keys = await listApiKeys(deps.db, site.id);
    const list = keys.length
      ? tableBox(
          'API keys',
          html`<table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${keys.map(
                (key) =>
                  html`<tr>
                    <td>${key.name}</td>
                    <td>${key.scopes.join(', ')}</td>
                    <td>${when(key.created_at)}</td>
                    <td>${when(key.last_used_at)}</td>
                    <td>
                      <form method="post" action="/sites/${site.id}/keys/${key.id}/revoke">
                        <input type="hidden" name="csrf" value="${csrf}" /><button class="danger">
                          Revoke
                        </button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )
      : html`<p>No API key yet.</p>`;
    return html`<p><a href="/sites/${site.id}">${site.title}</a></p>
      ${top}
      <h2>Keys</h2>
      ${list}
      <h2>New key</h2>
      <form class="stack" method="post" action="/sites/${site.id}/keys">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label>Name <input type="text" name="name" maxlength="100" placeholder="Inventory sync" /></label>
        <fieldset>
          <legend>Scopes</legend>
          ${SCOPES.map(
            (scope) =>
              html`<label
                ><input type="checkbox" name="scopes" value="${scope}" />
                <span><code>${scope}</code>: ${SCOPE_DESCRIPTIONS[scope]}</span></label
              >`,
          )}
        </fieldset>
        <div class="field">
          <label for="scope-list">Or paste scopes</label>
          <input
            id="scope-list"
            type="text"
            name="scopeList"
            maxlength="1000"
            aria-describedby="scope-list-hint"
          />
          <span class="hint" id="scope-list-hint"
            >Comma-separated: the scopes above, or the platform's API key permissions
            ${KEY_PERMISSIONS.map((name, i) => html`${i ? ', ' : ''}<code>${name}</code>`)}.</span
          >
        </div>
        <div class="actions"><button>Create key</button></div>
      </form>`;
  }

  app.get('/sites/:websiteId/keys', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const body = await keysPage(owner.id, websiteId, request.browser.csrf, html``);
    return sendPage(reply, 200, page('API keys', body, { ...owner, csrf: request.browser.csrf, wide: true }));
  });

  app.post('/sites/:websiteId/keys', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const context = { ...owner, csrf: request.browser.csrf, wide: true };
    // platform-surface 0.7: the platform's key permission names are taken as their scopes.
    const scopes = [...checked(request.body), field(request.body, 'scopeList')].filter((s) => s.trim());
    try {
      if (scopes.length === 0) throw new ValidationError('Choose at least one scope.');
      const { apiKey } = await createApiKey(deps, {
        websiteId: site.id,
        name: field(request.body, 'name'),
        scopes: scopes.join(','),
      });
      const shown = html`<div class="notice info" role="status">
        <p>Your new key. Copy it now: it is not shown again.</p>
        <p><code class="secret">${apiKey}</code></p>
      </div>`;
      return sendPage(
        reply,
        201,
        page('API keys', await keysPage(owner.id, site.id, context.csrf, shown), context),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const body = await keysPage(owner.id, site.id, context.csrf, notice(error.message));
      return sendPage(reply, error.status, page('API keys', body, context));
    }
  });

  app.post('/sites/:websiteId/keys/:keyId/revoke', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, keyId } = request.params as { websiteId: string; keyId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await revokeApiKeyById(deps, site.id, keyId);
    return reply.redirect(`/sites/${site.id}/keys`, 303);
  });
};
