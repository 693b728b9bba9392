import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { DomainError, PayloadTooLarge } from '../../shared/errors.ts';
import { checkedIcon, MAX_ICON_BYTES, type ClientIcon } from '../../oauth/client-icons.ts';
import {
  clientIcon,
  createClient,
  ownerClient,
  ownerClients,
  rotateClientSecret,
  updateClient,
} from '../../oauth/clients.service.ts';
import type { OAuthClientsTable } from '../../db/schema.ts';
import { requireCsrf } from '../session.ts';
import { html, type Html } from '../../pages/html.ts';
import { page, sendPage } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { notice } from '../../pages/notice.ts';

/** Where an app's icon is served: public, as the consent page shows it to any owner. */
export const iconPath = (clientId: string) => `/apps/${clientId}/icon`;

/**
 * An SVG icon may hold script; it never runs: no script source, and a sandbox (no same-origin
 * access, no forms) even when the icon is opened on its own.
 */
const ICON_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox";

/** A form of this page: its text fields, and the icon when one was chosen. */
async function readForm(
  request: FastifyRequest,
): Promise<{ fields: Record<string, string>; icon?: ClientIcon }> {
  const fields: Record<string, string> = {};
  let icon: ClientIcon | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    let data: Buffer;
    try {
      data = await part.toBuffer();
    } catch {
      throw new PayloadTooLarge(`icon: at most ${MAX_ICON_BYTES / 1024} KB`);
    }
    if (part.fieldname === 'icon' && data.length > 0) icon = checkedIcon(part.filename, data);
  }
  request.body = fields; // for the CSRF check
  return { fields, icon };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

function appForm(action: string, csrf: string, client: Partial<OAuthClientsTable>, submit: string): Html {
  return html`<form class="stack" method="post" action="${action}" enctype="multipart/form-data">
    <input type="hidden" name="csrf" value="${csrf}" />
    <label
      >Name <input type="text" name="name" maxlength="100" value="${client.name ?? ''}" required
    /></label>
    <label
      >Redirect URIs, one a line (https, or http on 127.0.0.1, [::1] or localhost)
      <textarea name="redirectUris" rows="3" required>${(client.redirect_uris ?? []).join('\n')}</textarea>
    </label>
    <label
      >Initiate URL (optional: makes it a partner app owners connect from their sites)
      <input type="url" name="initiateUrl" value="${client.initiate_url ?? ''}"
    /></label>
    <label
      >Terms of service URL (optional) <input type="url" name="termsUrl" value="${client.terms_url ?? ''}"
    /></label>
    <label
      >Privacy policy URL (optional) <input type="url" name="privacyUrl" value="${client.privacy_url ?? ''}"
    /></label>
    <label
      >Icon: a square .png or .svg of at most 200
      KB${client.icon_type ? ' (leave empty to keep the current one)' : ''}
      <input type="file" name="icon" accept=".png,.svg,image/png,image/svg+xml"
    /></label>
    <div class="actions"><button>${submit}</button></div>
  </form>`;
}

const clientInput = (fields: Record<string, string>) => ({
  name: fields.name ?? '',
  redirectUris: lines(fields.redirectUris ?? ''),
  initiateUrl: fields.initiateUrl,
  termsUrl: fields.termsUrl,
  privacyUrl: fields.privacyUrl,
});

function secretShown(clientId: string, secret: string): Html {
  return html`<div class="notice info" role="status">
    <p>Client id: <code>${clientId}</code></p>
    <p>Client secret: <code class="secret">${secret}</code></p>
    <p>Copy the secret now: it is not shown again. You can make a new one at any time.</p>
  </div>`;
}

/** Developer apps: any owner registers OAuth clients, edits them and rotates their secrets. */
export const adminDeveloperAppsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  await app.register(multipart, {
    limits: { fileSize: MAX_ICON_BYTES, files: 1, fields: 10, fieldSize: 20_000, parts: 11 },
  });

  async function editPage(ownerId: string, clientId: string, csrf: string, top: Html): Promise<Html> {
    const client = await ownerClient(deps.db, ownerId, clientId);
    const icon = client.icon_type
      ? html`<img src="${iconPath(client.id)}" alt="" width="48" height="48" />`
      : '';
    return html`<p><a href="/apps">Your apps</a></p>
      ${top}
      <div class="app">
        ${icon}
        <p>Client id <code>${client.id}</code></p>
      </div>
      ${appForm(`/apps/${client.id}`, csrf, client, 'Save')}
      <h2>Client secret</h2>
      <form method="post" action="/apps/${client.id}/secret">
        <input type="hidden" name="csrf" value="${csrf}" />
        <button class="danger">Make a new secret (the current one stops working)</button>
      </form>`;
  }

  app.get('/apps', async (request, reply) => {
    const owner = ownerOf(request);
    const clients = await ownerClients(deps.db, owner.id);
    const list = clients.length
      ? clients.map(
          (client) =>
            html`<div class="card">
              <h3><a href="/apps/${client.id}">${client.name}</a></h3>
              <p class="meta">Client id ${client.id} · ${client.redirect_uris.join(', ')}</p>
            </div>`,
        )
      : html`<p>You have registered no app.</p>`;
    const body = html`${list}
      <h2>Register an app</h2>
      ${appForm('/apps', request.browser.csrf, {}, 'Register')}`;
    return sendPage(reply, 200, page('Your apps', body, { ...owner, csrf: request.browser.csrf }));
  });

  app.post('/apps', async (request, reply) => {
    const owner = ownerOf(request);
    const context = { ...owner, csrf: request.browser.csrf };
    let fields: Record<string, string> = {};
    try {
      const form = await readForm(request);
      fields = form.fields;
      requireCsrf(deps, request);
      const { clientId, clientSecret } = await createClient(deps, {
        ...clientInput(fields),
        ownerEmail: owner.email,
        icon: form.icon,
      });
      const body = await editPage(owner.id, clientId, context.csrf, secretShown(clientId, clientSecret));
      return sendPage(reply, 201, page('App registered', body, context));
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 403) throw error;
      const draft = { name: fields.name, redirect_uris: lines(fields.redirectUris ?? '') };
      const body = html`${notice(error.message)}${appForm('/apps', context.csrf, draft, 'Register')}`;
      return sendPage(reply, error.status, page('Register an app', body, context));
    }
  });

  app.get('/apps/:clientId', async (request, reply) => {
    const owner = ownerOf(request);
    const { clientId } = request.params as { clientId: string };
    const body = await editPage(owner.id, clientId, request.browser.csrf, html``);
    return sendPage(reply, 200, page('Your app', body, { ...owner, csrf: request.browser.csrf }));
  });

  app.post('/apps/:clientId', async (request, reply) => {
    const owner = ownerOf(request);
    const { clientId } = request.params as { clientId: string };
    const context = { ...owner, csrf: request.browser.csrf };
    try {
      const form = await readForm(request);
      requireCsrf(deps, request);
      await updateClient(deps, owner.id, clientId, { ...clientInput(form.fields), icon: form.icon });
      return reply.redirect(`/apps/${clientId}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 403 || error.status === 404) throw error;
      const body = await editPage(owner.id, clientId, context.csrf, notice(error.message));
      return sendPage(reply, error.status, page('Your app', body, context));
    }
  });

  app.post('/apps/:clientId/secret', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { clientId } = request.params as { clientId: string };
    const { clientSecret } = await rotateClientSecret(deps, owner.id, clientId);
    const csrf = request.browser.csrf;
    const body = await editPage(owner.id, clientId, csrf, secretShown(clientId, clientSecret));
    return sendPage(reply, 200, page('New client secret', body, { ...owner, csrf }));
  });
};

/** An app's icon: public and sessionless, as the consent page shows it to any owner. */
export function registerIconRoute(app: FastifyInstance, db: Db): void {
  app.get('/apps/:clientId/icon', async (request, reply) => {
    const { clientId } = request.params as { clientId: string };
    const client = await clientIcon(db, clientId);
    if (!client?.icon || !client.icon_type) return reply.code(404).type('text/plain').send('no icon');
    return reply
      .type(client.icon_type)
      .header('content-security-policy', ICON_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=300')
      .send(client.icon);
  });
}
