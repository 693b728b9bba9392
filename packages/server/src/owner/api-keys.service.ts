import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../errors.ts';
import type { Ids } from '../ids.ts';
import { parseScopeList } from '../oauth/scopes.ts';
import { digest, newSecret } from '../secrets.ts';

export const API_KEY_PREFIX = 'emp_key_';

/** How often a key's last-used time is written: once a minute is enough to show it, and cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyCredential {
  kind: 'api_key';
  id: string;
  websiteId: string;
  scopes: readonly string[];
}

export async function createApiKey(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: { websiteId: string; name?: string; scopes: string },
): Promise<{ id: string; apiKey: string }> {
  const parsed = parseScopeList(input.scopes);
  if ('invalid' in parsed) throw new ValidationError(`scopes: unknown scope "${parsed.invalid}"`);
  const website = await deps.db
    .selectFrom('websites')
    .select('id')
    .where('id', '=', input.websiteId)
    .executeTakeFirst();
  if (!website) throw new NotFound(`website not found: ${input.websiteId}`);
  const apiKey = newSecret(API_KEY_PREFIX);
  const id = deps.ids.objectId();
  await deps.db
    .insertInto('api_keys')
    .values({
      id,
      website_id: input.websiteId,
      name: input.name?.trim() || 'API key',
      scopes: parsed.scopes,
      key_digest: digest(apiKey),
      created_at: deps.clock.now(),
    })
    .execute();
  return { id, apiKey };
}

export async function revokeApiKey(deps: { db: Db; clock: Clock }, apiKey: string): Promise<boolean> {
  const result = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: deps.clock.now() })
    .where('key_digest', '=', digest(apiKey))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The live key for a presented secret, or undefined. Looked up by digest: the secret is never stored. */
export async function authenticateApiKey(
  deps: { db: Db; clock: Clock },
  presented: string,
): Promise<ApiKeyCredential | undefined> {
  const row = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'website_id', 'scopes', 'last_used_at'])
    .where('key_digest', '=', digest(presented))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const now = deps.clock.now();
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    await deps.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return { kind: 'api_key', id: row.id, websiteId: row.website_id, scopes: row.scopes };
}
