import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { FaultEffect, FaultRulesTable } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import { NotFound } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { parseDateTime } from '../shared/iso-time.ts';
import { recordAudit } from '../sites/audit.ts';
import { effectOf, fail, limitsOf, MAX_RULES, parseMatch, type FaultInput } from './fault-input.ts';
import type { FaultRules } from './fault-rules.ts';

// The callers (the CLI, the pages, the test controls, the harness) give their rules through this module.
export { FAULT_STATUSES, type FaultInput } from './fault-input.ts';

export interface FaultDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /** This instance's rules, read again at once after a change; other instances hear of it on the feed. */
  faults?: FaultRules;
}

/** A rule as shown. */
export interface Fault {
  id: string;
  websiteId: string;
  match: string;
  effect: FaultEffect;
  status: number | null;
  retryAfter: number | null;
  latency: { minMs: number; maxMs: number } | null;
  slowBodyMs: number | null;
  probability: number;
  seed: number;
  count: number | null;
  remaining: number | null;
  until: string | null;
  app: string | null;
  apiKey: string | null;
  createdAt: string;
}

/**
 * Adds a fault rule to a website, after checking all of it (nothing is written when any part is
 * wrong). One transaction: the rule, the site's security event, the announcement to every
 * instance (change kind `fault_rules`).
 */
export async function addFault(
  deps: FaultDeps,
  websiteId: string,
  input: FaultInput,
  via: string,
): Promise<Fault> {
  if (typeof input !== 'object' || input === null) fail('rule', 'an object');
  const { method, path } = parseMatch(input.match);
  const effect = effectOf(input);
  const { probability, seed, count } = limitsOf(input);
  await websiteExists(deps.db, websiteId);
  let until: Date | null = null;
  if (input.until !== undefined) {
    if (typeof input.until !== 'string') fail('until', 'an RFC 3339 date-time');
    until = parseDateTime(input.until, 'until');
    const now = deps.clock.now(websiteId);
    if (until.getTime() <= now.getTime()) {
      fail('until', `must be in the future of the site’s time (${now.toISOString()})`);
    }
  }
  if (input.app !== undefined) {
    const client = await deps.db
      .selectFrom('oauth_clients')
      .select('id')
      .where('id', '=', String(input.app))
      .executeTakeFirst();
    if (!client) throw new NotFound(`app: no app with the client id ${String(input.app)}`);
  }
  if (input.apiKey !== undefined) {
    const key = await deps.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', String(input.apiKey))
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    if (!key) throw new NotFound(`apiKey: the website has no API key ${String(input.apiKey)}`);
  }
  const row = await deps.db.transaction().execute(async (trx) => {
    const { held } = await trx
      .selectFrom('fault_rules')
      .select((eb) => eb.fn.countAll<string>().as('held'))
      .where('website_id', '=', websiteId)
      .executeTakeFirstOrThrow();
    if (Number(held) >= MAX_RULES)
      fail('rule', `a website holds at most ${MAX_RULES} fault rules; clear some`);
    const inserted = await trx
      .insertInto('fault_rules')
      .values({
        id: deps.ids.objectId(),
        website_id: websiteId,
        method,
        path,
        ...effect,
        probability,
        seed,
        remaining: count,
        count,
        until,
        client_id: input.app ?? null,
        api_key_id: input.apiKey ?? null,
        created_at: deps.clock.now(websiteId),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(deps, trx, {
      kind: 'test_control',
      websiteId,
      detail: { action: 'faults.add', faultId: inserted.id, via },
    });
    await announce(trx, websiteId);
    return inserted;
  });
  await deps.faults?.reloadWebsite(websiteId);
  return shown(row);
}

/** A website's rules, oldest first, with what remains of their counts. */
export async function listFaults(deps: Pick<FaultDeps, 'db'>, websiteId: string): Promise<Fault[]> {
  await websiteExists(deps.db, websiteId);
  const rows = await deps.db
    .selectFrom('fault_rules')
    .selectAll()
    .where('website_id', '=', websiteId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(shown);
}

/** Removes one rule of a website. */
export async function removeFault(
  deps: FaultDeps,
  websiteId: string,
  faultId: string,
  via: string,
): Promise<{ removed: number }> {
  await websiteExists(deps.db, websiteId);
  await deps.db.transaction().execute(async (trx) => {
    const gone = await trx
      .deleteFrom('fault_rules')
      .where('id', '=', faultId)
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    if (!gone.numDeletedRows) throw new NotFound(`id: the website has no fault rule ${faultId}`);
    await recordAudit(deps, trx, {
      kind: 'test_control',
      websiteId,
      detail: { action: 'faults.remove', faultId, via },
    });
    await announce(trx, websiteId);
  });
  await deps.faults?.reloadWebsite(websiteId);
  return { removed: 1 };
}

/** Removes every rule of a website. */
export async function clearFaults(
  deps: FaultDeps,
  websiteId: string,
  via: string,
): Promise<{ removed: number }> {
  await websiteExists(deps.db, websiteId);
  const removed = await deps.db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('fault_rules').where('website_id', '=', websiteId).executeTakeFirst();
    await recordAudit(deps, trx, {
      kind: 'test_control',
      websiteId,
      detail: { action: 'faults.clear', via },
    });
    await announce(trx, websiteId);
    return Number(gone.numDeletedRows);
  });
  await deps.faults?.reloadWebsite(websiteId);
  return { removed };
}

async function websiteExists(db: Db, websiteId: string): Promise<void> {
  const found = await db.selectFrom('websites').select('id').where('id', '=', websiteId).executeTakeFirst();
  if (!found) throw new NotFound(`website not found: ${websiteId}`);
}

/** Every instance reads the website's rules again (faults/fault-rules.ts). */
async function announce(db: Db, websiteId: string): Promise<void> {
  await sql`SELECT pg_notify('emporium_changes', ${`fault_rules:${websiteId}`})`.execute(db);
}

function shown(row: FaultRulesTable): Fault {
  const ms = row.min_ms !== null && row.max_ms !== null ? { minMs: row.min_ms, maxMs: row.max_ms } : null;
  return {
    id: row.id,
    websiteId: row.website_id,
    match: row.method ? `${row.method} ${row.path}` : row.path,
    effect: row.effect,
    status: row.status,
    retryAfter: row.retry_after_s,
    latency: row.effect === 'latency' ? ms : null,
    slowBodyMs: row.effect === 'slow_body' ? row.min_ms : null,
    probability: row.probability,
    seed: row.seed,
    count: row.count,
    remaining: row.remaining,
    until: row.until?.toISOString() ?? null,
    app: row.client_id,
    apiKey: row.api_key_id,
    createdAt: row.created_at.toISOString(),
  };
}
