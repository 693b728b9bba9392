import type { ClientCache } from './client-cache.ts';
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import type { OAuthClientsTable } from '../db/schema.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { findOwnerIdByEmail } from '../sites/websites.repo.ts';
import { digest, newSecret } from '../shared/secrets.ts';
import type { ClientIcon } from './client-icons.ts';

export const CLIENT_SECRET_PREFIX = 'emp_cs_';
const MAX_NAME = 100;
const MAX_REDIRECT_URIS = 10;
const MAX_URL = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

interface Deps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /** Emptied once a rotation here commits; other instances empty theirs on the database's notice. */
  clients?: ClientCache;
}

export interface ClientInput {
  name: string;
  redirectUris: string[];
  initiateUrl?: string;
  termsUrl?: string;
  privacyUrl?: string;
}

/**
 * An address the service sends a browser to: absolute, https (plain http only on loopback, for
 * apps in development: RFC 8252 7.3), no user name or password in it, no fragment (RFC 6749
 * 3.1.2; security AZ-2). Returned exactly as given, since redirect URIs are compared byte for byte.
 */
function browserUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${field}: not an absolute URL: ${value}`);
  }
  if (value.length > MAX_URL) throw new ValidationError(`${field}: at most ${MAX_URL} characters`);
  if (value.includes('#')) throw new ValidationError(`${field}: must not contain a fragment (#)`);
  if (url.username || url.password)
    throw new ValidationError(`${field}: must not contain a user name or password`);
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ValidationError(`${field}: must use https (plain http only for 127.0.0.1, [::1] or localhost)`);
  }
  return value;
}

function optionalUrl(value: string | undefined, field: string): string | null {
  return value === undefined || value.trim() === '' ? null : browserUrl(value.trim(), field);
}

function checkedClient(input: ClientInput) {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_NAME)
    throw new ValidationError(`name: 1 to ${MAX_NAME} characters`);
  if (input.redirectUris.length < 1 || input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw new ValidationError(`redirectUris: 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  const redirectUris = [...new Set(input.redirectUris.map((uri) => browserUrl(uri, 'redirectUri')))];
  return {
    name,
    redirect_uris: redirectUris,
    initiate_url: optionalUrl(input.initiateUrl, 'initiateUrl'),
    terms_url: optionalUrl(input.termsUrl, 'termsUrl'),
    privacy_url: optionalUrl(input.privacyUrl, 'privacyUrl'),
  };
}

/** Registers a client for the owner; the secret is returned here only (security SC-1). */
export async function createClient(
  deps: Deps,
  input: ClientInput & { ownerEmail: string; icon?: ClientIcon },
): Promise<{ clientId: string; clientSecret: string }> {
  const client = checkedClient(input);
  const owner = await findOwnerIdByEmail(deps.db, input.ownerEmail);
  if (!owner) throw new NotFound(`owner not found: ${input.ownerEmail}`);
  const clientId = deps.ids.objectId();
  const clientSecret = newSecret(CLIENT_SECRET_PREFIX);
  await deps.db
    .insertInto('oauth_clients')
    .values({
      id: clientId,
      owner_id: owner.id,
      ...client,
      secret_digest: digest(clientSecret),
      created_at: deps.clock.now(),
      ...(input.icon && {
        icon: input.icon.data,
        icon_type: input.icon.type,
        icon_updated_at: deps.clock.now(),
      }),
    })
    .execute();
  return { clientId, clientSecret };
}

/** A new secret for the owner's client; the old one stops working at once. */
export async function rotateClientSecret(
  deps: Deps,
  ownerId: string,
  clientId: string,
): Promise<{ clientSecret: string }> {
  const clientSecret = newSecret(CLIENT_SECRET_PREFIX);
  const result = await deps.db
    .updateTable('oauth_clients')
    .set({ secret_digest: digest(clientSecret), secret_rotated_at: deps.clock.now() })
    .where('id', '=', clientId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new NotFound(`client not found: ${clientId}`);
  deps.clients?.reset();
  return { clientSecret };
}

/** The owner's client, or 404 (another owner's looks the same as a missing one). */
export async function ownerClient(db: Db, ownerId: string, clientId: string): Promise<OAuthClientsTable> {
  const client = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  if (!client) throw new NotFound(`client not found: ${clientId}`);
  return client;
}

export function ownerClients(db: Db, ownerId: string): Promise<OAuthClientsTable[]> {
  return db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at')
    .execute();
}

/** What the consent page shows of the app asking: any client, as any owner may be asked. */
export function consentClient(db: Db, clientId: string) {
  return db
    .selectFrom('oauth_clients')
    .select(['id', 'name', 'icon_type'])
    .where('id', '=', clientId)
    .executeTakeFirstOrThrow();
}

/** A client's icon and its type, served publicly as the consent page shows it to any owner. */
export function clientIcon(db: Db, clientId: string) {
  return db
    .selectFrom('oauth_clients')
    .select(['icon', 'icon_type'])
    .where('id', '=', clientId)
    .executeTakeFirst();
}

/** Partner apps (clients with an initiate URL), by name: the extensions an owner can connect. */
export function partnerClients(db: Db) {
  return db
    .selectFrom('oauth_clients')
    .select(['id', 'name', 'initiate_url', 'icon_type', 'terms_url', 'privacy_url'])
    .where('initiate_url', 'is not', null)
    .orderBy('name')
    .execute();
}

/** Changes everything of the owner's client but its id and secret; the icon only when given. */
export async function updateClient(
  deps: Deps,
  ownerId: string,
  clientId: string,
  input: ClientInput & { icon?: ClientIcon },
): Promise<void> {
  const client = checkedClient(input);
  const icon = input.icon && {
    icon: input.icon.data,
    icon_type: input.icon.type,
    icon_updated_at: deps.clock.now(),
  };
  const result = await deps.db
    .updateTable('oauth_clients')
    .set({ ...client, ...icon })
    .where('id', '=', clientId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new NotFound(`client not found: ${clientId}`);
}

/** A digest no secret has, compared against when the client id is unknown. */
const NO_CLIENT = digest('');

/**
 * The client these credentials belong to, or undefined. An unknown id costs the same digest
 * comparison as a wrong secret, so the two cannot be told apart (security TE-2, TE-4).
 */
export async function authenticateClient(
  deps: { db: Db; clients?: ClientCache },
  clientId: string,
  clientSecret: string,
): Promise<{ id: string; name: string } | undefined> {
  let client = deps.clients?.latest(clientId);
  if (!client) {
    const generation = deps.clients?.generation ?? 0; // before the query: see versioned-cache.ts
    const row = await deps.db
      .selectFrom('oauth_clients')
      .select(['id', 'name', 'secret_digest'])
      .where('id', '=', clientId)
      .executeTakeFirst();
    if (row) {
      client = { id: row.id, name: row.name, secretDigest: row.secret_digest };
      deps.clients?.set(clientId, 0, client, generation);
    }
  }
  const matches = timingSafeEqual(digest(clientSecret), client?.secretDigest ?? NO_CLIENT);
  return client && matches ? { id: client.id, name: client.name } : undefined;
}
