import type { FastifyPluginAsync } from 'fastify';
import {
  isStatusClass,
  listRequests,
  logCredentials,
  requestById,
  type LoggedRequest,
  type RequestFilter,
} from '../../api-log/requests.service.ts';
import { html } from '../../pages/html.ts';
import { NotFound } from '../../shared/errors.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { listTable, page, sendPage, when } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';

type Query = Partial<Record<'credential' | 'status' | 'path' | 'contextId' | 'cursor', string>>;

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/** The page's query as the log's filter: `credential` is `key:ID` or `app:ID`; blanks are no filter. */
function filterOf(query: Query): RequestFilter {
  const filter: RequestFilter = { limit: 100 };
  const [kind, id] = (query.credential ?? '').split(':', 2);
  if (kind === 'key' && id) filter.apiKeyId = id;
  if (kind === 'app' && id) filter.clientId = id;
  if (query.status && isStatusClass(query.status)) filter.statusClass = query.status;
  if (query.path?.trim()) filter.path = query.path.trim();
  if (query.contextId?.trim()) filter.contextId = query.contextId.trim();
  if (query.cursor) filter.cursor = query.cursor;
  return filter;
}

function credentialName(request: LoggedRequest): string {
  const name = request.credential.name ?? request.credential.id;
  return request.credential.kind === 'api_key' ? `API key ${name}` : name;
}

/**
 * /sites/:websiteId/api-log: what the API answered the site's keys and apps, newest first, with
 * filters; /sites/:websiteId/api-log/:id one request whole. The site's owner only (ownedWebsite).
 */
export const adminApiLogRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/api-log', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const query = request.query as Query;
    await request.server.apiLog?.flush();
    const [credentials, found] = await Promise.all([
      logCredentials(deps.db, site.id),
      listRequests(deps.db, site.id, filterOf(query)),
    ]);
    const chosen = query.credential ?? '';
    const form = html`<form class="stack" method="get" action="/sites/${site.id}/api-log">
      <label
        >App or key
        <select name="credential">
          <option value="">All</option>
          ${credentials.map((credential) => {
            const value = `${credential.kind === 'api_key' ? 'key' : 'app'}:${credential.id}`;
            const label = credential.kind === 'api_key' ? `API key ${credential.name}` : credential.name;
            return html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${label}</option>`;
          })}
        </select></label
      >
      <label
        >Status
        <select name="status">
          <option value="">All</option>
          ${STATUS_CLASSES.map(
            (status) =>
              html`<option value="${status}" ${status === query.status ? html`selected` : ''}>
                ${status}
              </option>`,
          )}
        </select></label
      >
      <label>Path starts with <input name="path" value="${query.path ?? ''}" /></label>
      <label>contextId <input name="contextId" value="${query.contextId ?? ''}" /></label>
      <button>Filter</button>
    </form>`;
    const rows = found.requests.map(
      (line) =>
        html`<tr>
          <td><a href="/sites/${site.id}/api-log/${line.id}">${when(line.at)}</a></td>
          <td>${line.method}</td>
          <td>${line.path}</td>
          <td>${String(line.status)}</td>
          <td>${`${Math.round(line.latencyMs)} ms`}</td>
          <td>${credentialName(line)}</td>
          <td>
            ${line.fault ? html`<span class="meta" title="injected fault">fault: ${line.fault}</span>` : ''}
          </td>
        </tr>`,
    );
    const next = found.next
      ? html`<p>
          <a
            href="/sites/${site.id}/api-log?${new URLSearchParams({ ...query, cursor: found.next }).toString()}"
            >Older requests</a
          >
        </p>`
      : '';
    const body = html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
      ${form}
      ${
        rows.length
          ? listTable(
              'Requests',
              ['When', 'Method', 'Path', 'Status', 'Latency', 'App or key', 'Fault'],
              rows,
            )
          : html`<p>
              No request
              yet${query.credential || query.status || query.path || query.contextId ? ' matches these filters' : ''}.
            </p>`
      }
      ${next}`;
    return sendPage(
      reply,
      200,
      page(`API log of ${site.title}`, body, { ...owner, csrf: request.browser.csrf, wide: true }),
    );
  });

  app.get('/sites/:websiteId/api-log/:requestId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, requestId } = request.params as { websiteId: string; requestId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const line = await requestById(deps.db, site.id, requestId);
    if (!line) throw new NotFound('There is no such request in this site’s log.');
    const bodyOf = (text: string | null, cut: boolean) =>
      text === null
        ? html`<p class="meta">No body.</p>`
        : html`<pre>${text}</pre>
            ${cut ? html`<p class="meta">Cut at 16 KB.</p>` : ''}`;
    const body = html`<p><a href="/sites/${site.id}/api-log">Back to the API log</a></p>
      <dl>
        <dt>When</dt>
        <dd>${when(line.at)}</dd>
        <dt>Request</dt>
        <dd>${line.method} ${line.path}</dd>
        <dt>Status</dt>
        <dd>${String(line.status)}</dd>
        <dt>Latency</dt>
        <dd>${`${line.latencyMs.toFixed(1)} ms`}</dd>
        <dt>App or key</dt>
        <dd>${credentialName(line)}</dd>
        <dt>contextId</dt>
        <dd>${line.contextId}</dd>
        ${
          line.fault
            ? html`<dt>Injected fault</dt>
                <dd>${line.fault}</dd>`
            : ''
        }
      </dl>
      <h2>Request body</h2>
      ${bodyOf(line.requestBody, line.requestBodyCut)}
      <h2>Response body</h2>
      ${bodyOf(line.responseBody, line.responseBodyCut)}`;
    return sendPage(
      reply,
      200,
      page(`Request ${line.contextId}`, body, { ...owner, csrf: request.browser.csrf, wide: true }),
    );
  });
};
