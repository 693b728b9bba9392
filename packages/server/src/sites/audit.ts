import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import type { AuditKind } from '../db/schema.ts';
import type { Ids } from '../shared/ids.ts';

export interface AuditEvent {
  kind: AuditKind;
  ownerId?: string | null;
  websiteId?: string | null;
  clientId?: string | null;
  ip?: string | null;
  /** What happened, for the owner to read; never a secret, code or token. */
  detail?: Record<string, unknown>;
}

/**
 * Writes a security event (security AB-6). Called inside the transaction of the change it
 * describes, so an event is recorded exactly when its change commits.
 */
export async function recordAudit(
  deps: { clock: Clock; ids: Ids },
  db: Db,
  event: AuditEvent,
): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: deps.ids.objectId(),
      // A website's event is in its time; an owner's sign-in belongs to no website.
      at: deps.clock.now(event.websiteId ?? undefined),
      kind: event.kind,
      owner_id: event.ownerId ?? null,
      website_id: event.websiteId ?? null,
      client_id: event.clientId ?? null,
      ip: event.ip ?? null,
      detail: event.detail ?? {},
    })
    .execute();
}

/** The owner's last ten sign-ins and refused sign-ins, newest first. */
export function recentSignIns(db: Db, ownerId: string) {
  return db
    .selectFrom('audit_events')
    .select(['kind', 'at', 'ip'])
    .where('owner_id', '=', ownerId)
    .where('kind', 'in', ['login', 'login_failed'])
    .orderBy('at', 'desc')
    .limit(10)
    .execute();
}

/** A website's last fifty events, newest first, with the name of the app each concerns. */
export function websiteAuditEvents(db: Db, websiteId: string) {
  return db
    .selectFrom('audit_events')
    .leftJoin('oauth_clients', 'oauth_clients.id', 'audit_events.client_id')
    .select(['audit_events.kind', 'audit_events.at', 'oauth_clients.name as clientName'])
    .where('audit_events.website_id', '=', websiteId)
    .orderBy('audit_events.at', 'desc')
    .limit(50)
    .execute();
}
