import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../shared/errors.ts';

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx';

export interface RequestFilter {
  /** An OAuth client's requests (by its id); `app` says the same. */
  clientId?: string;
  app?: string;
  /** An API key's requests (by its id). */
  apiKeyId?: string;
  statusClass?: StatusClass;
  /** Paths that start with this (the query included). */
  path?: string;
  contextId?: string;
  /** At most 100; 50 by default. */
  limit?: number;
  /** The `next` of the page before. */
  cursor?: string;
}

export interface LoggedRequest {
  id: string;
  websiteId: string;
  at: Date;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  contextId: string;
  credential: { kind: 'api_key' | 'oauth'; id: string; name: string | null };
  fault: string | null;
  requestBody: string | null;
  requestBodyCut: boolean;
  responseBody: string | null;
  responseBodyCut: boolean;
}

export interface RequestPage {
  requests: LoggedRequest[];
  /** The cursor of the next (older) page; absent on the last. */
  next?: string;
}

export const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 50;

function encodeCursor(row: { at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.at.toISOString(), row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && /^\d{1,19}$/.test(id)) {
      const date = new Date(at);
      if (!Number.isNaN(date.getTime())) return { at: date, id };
    }
  } catch {
    // refused below
  }
  throw new ValidationError('cursor: not one this log gave');
}

/** Whether a text is a status class the log filters by. */
export function isStatusClass(value: string): value is StatusClass {
  return /^[2-5]xx$/.test(value);
}

function selectRequests(db: Db, websiteId: string) {
  return db
    .selectFrom('api_requests as r')
    .leftJoin('api_keys as k', (join) =>
      join.onRef('k.id', '=', 'r.credential_id').on('r.credential_kind', '=', 'api_key'),
    )
    .leftJoin('oauth_clients as c', (join) =>
      join.onRef('c.id', '=', 'r.credential_id').on('r.credential_kind', '=', 'oauth'),
    )
    .selectAll('r')
    .select(sql<string | null>`coalesce(k.name, c.name)`.as('credential_name'))
    .where('r.website_id', '=', websiteId);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectRequests>['executeTakeFirstOrThrow']>>;

function toRequest(row: Row): LoggedRequest {
  return {
    // int8 comes back as a number (db/connect.ts parses it); the id is text to the log's readers.
    id: String(row.id),
    websiteId: row.website_id,
    at: row.at,
    method: row.method,
    path: row.path,
    status: row.status,
    latencyMs: row.latency_ms,
    contextId: row.context_id,
    credential: { kind: row.credential_kind, id: row.credential_id, name: row.credential_name },
    fault: row.fault,
    requestBody: row.request_body,
    requestBodyCut: row.request_body_cut,
    responseBody: row.response_body,
    responseBodyCut: row.response_body_cut,
  };
}

/** A website's logged requests, newest first; a website sees its own only. */
export async function listRequests(
  db: Db,
  websiteId: string,
  filter: RequestFilter = {},
): Promise<RequestPage> {
  const limit = Math.min(Math.max(filter.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  let query = selectRequests(db, websiteId);
  const clientId = filter.clientId ?? filter.app;
  if (clientId !== undefined) {
    query = query.where('r.credential_kind', '=', 'oauth').where('r.credential_id', '=', clientId);
  }
  if (filter.apiKeyId !== undefined) {
    query = query.where('r.credential_kind', '=', 'api_key').where('r.credential_id', '=', filter.apiKeyId);
  }
  if (filter.statusClass !== undefined) {
    if (!isStatusClass(filter.statusClass)) throw new ValidationError('status: one of 2xx, 3xx, 4xx, 5xx');
    const floor = Number(filter.statusClass[0]) * 100;
    query = query.where('r.status', '>=', floor).where('r.status', '<', floor + 100);
  }
  if (filter.path) {
    query = query.where(sql<boolean>`starts_with(r.path, ${filter.path})`);
  }
  if (filter.contextId !== undefined) query = query.where('r.context_id', '=', filter.contextId);
  if (filter.cursor !== undefined) {
    const after = decodeCursor(filter.cursor);
    query = query.where(sql<boolean>`(r.at, r.id) < (${after.at}, ${after.id}::bigint)`);
  }
  const rows = await query
    .orderBy('r.at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit).map(toRequest);
  const last = page.at(-1);
  return rows.length > limit && last ? { requests: page, next: encodeCursor(last) } : { requests: page };
}

/** One logged request of the website, or undefined (another website's is not found either). */
export async function requestById(db: Db, websiteId: string, id: string): Promise<LoggedRequest | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const row = await selectRequests(db, websiteId).where('r.id', '=', id).executeTakeFirst();
  return row && toRequest(row);
}

export interface LogCredential {
  kind: 'api_key' | 'oauth';
  id: string;
  name: string;
}

/** What a site's log can be filtered by: its API keys and the apps it granted, by name. */
export async function logCredentials(db: Db, websiteId: string): Promise<LogCredential[]> {
  const [keys, apps] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select(['id', 'name'])
      .where('website_id', '=', websiteId)
      .orderBy('name')
      .execute(),
    db
      .selectFrom('oauth_clients as c')
      .select(['c.id', 'c.name'])
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('oauth_grants as g')
            .select(sql`1`.as('one'))
            .whereRef('g.client_id', '=', 'c.id')
            .where('g.website_id', '=', websiteId),
        ),
      )
      .orderBy('c.name')
      .execute(),
  ]);
  return [
    ...keys.map((key) => ({ kind: 'api_key' as const, ...key })),
    ...apps.map((app) => ({ kind: 'oauth' as const, ...app })),
  ];
}
