import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { Ids } from './ids.ts';
import { SCOPES } from './oauth/scopes.ts';
import { createApiKey } from './owner/api-keys.service.ts';
import { createOwner } from './owner/owners.service.ts';
import { createWebsite } from './owner/websites.service.ts';

export interface DemoSite {
  email: string;
  password: string;
  websiteId: string;
  storePageId: string;
  apiKey: string;
}

/**
 * On a database without owners, a demo owner, website and all-scopes API key, so a fresh
 * `npm start` can be tried with curl at once. Returns the secrets to show once, or undefined.
 */
export async function seedDemoSite(deps: { db: Db; clock: Clock; ids: Ids }): Promise<DemoSite | undefined> {
  const any = await deps.db.selectFrom('owners').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  await createOwner(deps, { email, password, firstName: 'Demo', lastName: 'Owner' });
  const { websiteId, storePageId } = await createWebsite(deps, { ownerEmail: email, title: 'Demo Store' });
  const { apiKey } = await createApiKey(deps, { websiteId, name: 'Demo key', scopes: SCOPES.join(',') });
  return { email, password, websiteId, storePageId, apiKey };
}
