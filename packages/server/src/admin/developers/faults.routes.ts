import type { FastifyPluginAsync } from 'fastify';
import {
  addFault,
  clearFaults,
  FAULT_STATUSES,
  listFaults,
  removeFault,
  type Fault,
  type FaultInput,
} from '../../faults/faults.service.ts';
import { field } from '../../pages/forms.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import { DomainError } from '../../shared/errors.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { page, sendPage, tableBox } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';

const EFFECTS = {
  status: 'Answer with an error status',
  latency: 'Answer late',
  reset: 'Drop the connection',
  slowBody: 'Send the answer slowly',
} as const;
type Effect = keyof typeof EFFECTS;

/** What a rule does, in words. */
function effectOf(fault: Fault): string {
  switch (fault.effect) {
    case 'status':
      return fault.status === 429 ? `429, Retry-After ${fault.retryAfter} s` : String(fault.status);
    case 'latency':
      return fault.latency!.minMs === fault.latency!.maxMs
        ? `${fault.latency!.minMs} ms late`
        : `${fault.latency!.minMs} to ${fault.latency!.maxMs} ms late`;
    case 'reset':
      return 'connection dropped';
    default:
      return `answer sent over ${fault.slowBodyMs} ms`;
  }
}

/** Who and how long a rule applies to, in words. */
function limitsOf(fault: Fault): string {
  const whose = fault.app ? `app ${fault.app}` : fault.apiKey ? `API key ${fault.apiKey}` : 'every caller';
  const share = fault.probability < 1 ? `, ${fault.probability * 100}% (seed ${fault.seed})` : '';
  const until =
    fault.count !== null
      ? `, ${fault.remaining} of ${fault.count} left`
      : fault.until
        ? `, until ${fault.until}`
        : '';
  return `${whose}${share}${until}`;
}

/** The form's fields as a rule; a number field left empty is not given. */
function faultInput(body: unknown): FaultInput {
  const number = (name: string) => (field(body, name).trim() === '' ? undefined : Number(field(body, name)));
  const text = (name: string) => field(body, name).trim() || undefined;
  const effect = field(body, 'effect') as Effect;
  const value = field(body, 'value').trim();
  return {
    match: field(body, 'match'),
    ...(effect === 'status' && { status: Number(value), retryAfter: number('retryAfter') }),
    ...(effect === 'latency' && { latency: /^\d+$/.test(value) ? Number(value) : value }),
    ...(effect === 'reset' && { reset: true }),
    ...(effect === 'slowBody' && { slowBody: Number(value) }),
    probability: number('probability'),
    seed: number('seed'),
    count: number('count'),
    until: text('until'),
    app: text('app'),
    apiKey: text('apiKey'),
  };
}

function rulesTable(websiteId: string, faults: Fault[], csrf: string): Html {
  if (faults.length === 0) return html`<p>No fault is injected: the site’s API answers as it should.</p>`;
  return tableBox(
    'Injected faults',
    html`<table>
      <thead>
        <tr>
          <th>Requests</th>
          <th>Fault</th>
          <th>Applies to</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${faults.map(
          (fault) =>
            html`<tr>
              <td><code>${fault.match}</code></td>
              <td>${effectOf(fault)}</td>
              <td>${limitsOf(fault)}</td>
              <td>
                <form method="post" action="/sites/${websiteId}/faults/${fault.id}/remove">
                  <input type="hidden" name="csrf" value="${csrf}" />
                  <button>Remove</button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

function addForm(websiteId: string, csrf: string): Html {
  return html`<h2>Add a fault</h2>
    <form class="stack" method="post" action="/sites/${websiteId}/faults">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label
        >Requests (a method and a path, <code>*</code> for any run of characters)
        <input type="text" name="match" maxlength="300" placeholder="POST /1.0/commerce/orders*" required
      /></label>
      <label
        >Fault
        <select name="effect">
          ${Object.entries(EFFECTS).map(([value, words]) => html`<option value="${value}">${words}</option>`)}
        </select>
      </label>
      <label
        >Status (${FAULT_STATUSES.join(', ')}), milliseconds late (<code>800</code> or <code>200..900</code>),
        or milliseconds to send the answer over
        <input type="text" name="value" maxlength="20" />
      </label>
      <label>Retry-After seconds, for 429 <input type="number" name="retryAfter" min="0" /></label>
      <label>Share of matching requests, 0 to 1 <input type="text" name="probability" value="1" /></label>
      <label>Seed, to replay the same picks <input type="number" name="seed" min="0" /></label>
      <label>Only the first this many <input type="number" name="count" min="1" /></label>
      <label>Until (the site’s time, RFC 3339) <input type="text" name="until" /></label>
      <label>Only this app (client id) <input type="text" name="app" maxlength="64" /></label>
      <label>Only this API key (its id) <input type="text" name="apiKey" maxlength="64" /></label>
      <div class="actions"><button>Add the fault</button></div>
    </form>`;
}

/**
 * /sites/:websiteId/faults: the injected faults of a site's API (faults/), for its developer to
 * see how an app copes with errors, slowness and dropped connections; the same rules as the
 * CLI, the harness and the test controls manage.
 */
export const adminFaultsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  const faultDeps = { ...deps, faults: deps.commerce.faults };

  async function faultsPage(request: Parameters<typeof ownerOf>[0], websiteId: string, error?: DomainError) {
    const owner = ownerOf(request);
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const csrf = request.browser.csrf;
    const body = html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
      <p>
        Rules here make this site’s API (never its store or these pages) answer as the platform does on a bad
        day. Each change is a security event of the site.
      </p>
      ${notice(error?.message)} ${rulesTable(site.id, await listFaults(deps, site.id), csrf)}
      ${addForm(site.id, csrf)}
      <form method="post" action="/sites/${site.id}/faults/clear">
        <input type="hidden" name="csrf" value="${csrf}" />
        <button class="danger">Remove every fault</button>
      </form>`;
    return page(`Faults of ${site.title}`, body, { ...owner, csrf, wide: true });
  }

  app.get('/sites/:websiteId/faults', async (request, reply) => {
    const { websiteId } = request.params as { websiteId: string };
    return sendPage(reply, 200, await faultsPage(request, websiteId));
  });

  app.post('/sites/:websiteId/faults', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    try {
      await addFault(faultDeps, site.id, faultInput(request.body), 'owner page');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return sendPage(reply, error.status, await faultsPage(request, site.id, error));
    }
    return reply.redirect(`/sites/${site.id}/faults`, 303);
  });

  app.post('/sites/:websiteId/faults/:faultId/remove', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, faultId } = request.params as { websiteId: string; faultId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await removeFault(faultDeps, site.id, faultId, 'owner page');
    return reply.redirect(`/sites/${site.id}/faults`, 303);
  });

  app.post('/sites/:websiteId/faults/clear', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    await clearFaults(faultDeps, site.id, 'owner page');
    return reply.redirect(`/sites/${site.id}/faults`, 303);
  });
};
