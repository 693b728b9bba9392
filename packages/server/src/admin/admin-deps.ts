import type { Clock } from '../shared/clock.ts';
import type { OrderDeps } from '../orders/place-order.ts';
import type { Db } from '../db/database.ts';
import type { ImageStorage } from '../media/storage.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import type { Ids } from '../shared/ids.ts';
import type { Jobs } from '../jobs/queue.ts';
import type { AccessTokenCache } from '../oauth/access-tokens.ts';
import type { ClientCache } from '../oauth/client-cache.ts';
import type { FaultRules } from '../faults/fault-rules.ts';
import type { Sessions } from './session.ts';

/** What the owner pages' routes receive. */
export interface AdminDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /** The access token cache, emptied when a revocation here commits. */
  tokens: AccessTokenCache;
  /** The OAuth client cache, emptied when a secret rotated here commits. */
  clients: ClientCache;
  /** Where the notifications of an owner's actions (a revocation, a resend) are queued. */
  jobs: Jobs;
  sessions: Sessions;
  /** Sign-in, sign-up and consent posts a client address may make a minute (AZ-6, AB-1). */
  signInPerMinute: number;
  /** The services' dependencies, caches included, that the order and product pages share with the API. */
  commerce: OrderDeps & { storage: ImageStorage; cursors: CursorCodec; faults: FaultRules };
}

/** Any origin will do: a path resolved against it stays on this service whatever its address. */
const OWN_ORIGIN = 'http://emporium.invalid';

/**
 * Where to go after signing in: a path of this site only (security AZ-6, AZ-15). The value is
 * resolved as a browser would resolve it (which drops tabs and line breaks, reads `\` as `/` and
 * collapses `/./`), so what leaves another origin there (`/<TAB>/evil.example` is `//evil.example`)
 * is refused here too. The answer is the resolved path, so the `Location` header carries what was
 * checked, percent-encoded, and never a path that begins `//` (another host to a browser).
 */
export function internalPath(next: string, fallback = '/sites'): string {
  if (!next) return fallback;
  let url: URL;
  try {
    url = new URL(next, `${OWN_ORIGIN}/`);
  } catch {
    return fallback;
  }
  if (url.origin !== OWN_ORIGIN || url.pathname.startsWith('//')) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
