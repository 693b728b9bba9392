import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { AuditKind } from './db/schema.ts';
import type { Ids } from './ids.ts';

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
      at: deps.clock.now(),
      kind: event.kind,
      owner_id: event.ownerId ?? null,
      website_id: event.websiteId ?? null,
      client_id: event.clientId ?? null,
      ip: event.ip ?? null,
      detail: event.detail ?? {},
    })
    .execute();
}
