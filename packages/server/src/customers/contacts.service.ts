import type { Clock } from '../shared/clock.ts';
import { parseEmail } from '../shared/email.ts';
import type { Db } from '../db/database.ts';
import { NotFound } from '../shared/errors.ts';
import { OBJECT_ID, type Ids } from '../shared/ids.ts';
import type { Jobs } from '../jobs/queue.ts';
import { emit, inTransaction } from '../webhooks/outbox.ts';
import { microsText, toContact } from './contacts.mapper.ts';
import * as repo from './contacts.repo.ts';
import type { ContactT, CreateContactInput, PatchContactInput } from './contacts.schemas.ts';

/** Contacts v1 (platform-surface 2.6): create, read, merge-patch and delete, each with its webhook. */

export interface ContactDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  jobs: Jobs;
}

/** A malformed id finds nothing, like another website's (api-details 1: ids cannot be probed). */
export function checkContactId(id: string): string {
  const lower = id.toLowerCase();
  if (!OBJECT_ID.test(lower)) throw new NotFound(`contact not found: ${id}`);
  return lower;
}

/** The contact as it now reads, inside the caller's transaction. */
export async function readContact(db: Db, websiteId: string, id: string): Promise<ContactT> {
  const row = await repo.selectContact(db, websiteId, id);
  if (!row) throw new NotFound(`contact not found: ${id}`);
  return toContact(row);
}

/**
 * Emits `contact.update` when the contact object changed (platform-surface 3): a PATCH, or an
 * address book or order change that moved its default address or filled in its names.
 */
export async function announceChange(
  trx: Db,
  deps: Omit<ContactDeps, 'db'>,
  websiteId: string,
  before: ContactT,
): Promise<number> {
  const after = await readContact(trx, websiteId, before.id);
  if (JSON.stringify(after) === JSON.stringify(before)) return 0;
  return emit(trx, deps, { websiteId, topic: 'contact.update', data: after });
}

export function getContact(deps: { db: Db }, websiteId: string, id: string): Promise<ContactT> {
  return readContact(deps.db, websiteId, checkContactId(id));
}

/** A contact of no orders (isCustomer false in /1.0/profiles); 409 when its e-mail is taken. */
export function createContact(
  deps: ContactDeps,
  websiteId: string,
  body: CreateContactInput,
): Promise<ContactT> {
  const email = parseEmail(body.primaryEmail.email, 'primaryEmail.email');
  const accepts = body.primaryEmail.acceptsMarketing ?? false;
  return inTransaction(deps, async (trx, queued) => {
    const now = deps.clock.now(websiteId);
    const id = deps.ids.objectId();
    await repo.insertContact(trx, {
      id,
      website_id: websiteId,
      email,
      first_name: body.firstName,
      last_name: body.lastName,
      has_account: false,
      accepts_marketing: accepts,
      address: null,
      order_count: 0,
      total_order_minor: 0,
      total_refund_minor: 0,
      first_order_on: null,
      last_order_on: null,
      created_on: now,
      locale: body.locale,
      email_created_on: now,
      marketing_joined_on: accepts ? now : null,
      marketing_left_on: null,
    });
    const contact = await readContact(trx, websiteId, id);
    queued(await emit(trx, deps, { websiteId, topic: 'contact.create', data: contact }));
    return contact;
  });
}

/**
 * JSON merge patch (RFC 7396): a field left out is kept, `locale: null` clears it. A new e-mail
 * gets a new createdOn unless only its case changed; subscribing sets joinedOn and clears leftOn,
 * unsubscribing sets leftOn and keeps joinedOn (when the person had joined).
 */
export function patchContact(
  deps: ContactDeps,
  websiteId: string,
  contactId: string,
  body: PatchContactInput,
): Promise<ContactT> {
  const id = checkContactId(contactId);
  const email =
    body.primaryEmail?.email === undefined
      ? undefined
      : parseEmail(body.primaryEmail.email, 'primaryEmail.email');
  return inTransaction(deps, async (trx, queued) => {
    if (!(await repo.lockContact(trx, websiteId, id))) throw new NotFound(`contact not found: ${contactId}`);
    const before = await readContact(trx, websiteId, id);
    const stored = await repo.selectMarketing(trx, id);
    const now = deps.clock.now(websiteId);
    const set: repo.ContactChanges = {};
    if (body.firstName !== undefined) set.first_name = body.firstName;
    if (body.lastName !== undefined) set.last_name = body.lastName;
    if (body.locale !== undefined) set.locale = body.locale;
    if (email !== undefined && email !== stored.email) {
      set.email = email;
      if (email.toLowerCase() !== stored.email.toLowerCase()) set.email_created_on = now;
    }
    const accepts = body.primaryEmail?.acceptsMarketing;
    if (accepts !== undefined && accepts !== stored.accepts_marketing) {
      set.accepts_marketing = accepts;
      if (accepts) Object.assign(set, { marketing_joined_on: now, marketing_left_on: null });
      else set.marketing_left_on = now;
    }
    await repo.updateContact(trx, id, set);
    queued(await announceChange(trx, deps, websiteId, before));
    return readContact(trx, websiteId, id);
  });
}

/** Deletes the contact and its address book; its orders keep their customerId. */
export function deleteContact(deps: ContactDeps, websiteId: string, contactId: string): Promise<void> {
  const id = checkContactId(contactId);
  return inTransaction(deps, async (trx, queued) => {
    if (!(await repo.deleteContact(trx, websiteId, id)))
      throw new NotFound(`contact not found: ${contactId}`);
    const deletedOn = microsText(deps.clock.now(websiteId));
    queued(await emit(trx, deps, { websiteId, topic: 'contact.delete', data: { id, deletedOn } }));
  });
}
