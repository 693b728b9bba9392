import type { Db } from '../db/database.ts';
import { digest } from '../shared/secrets.ts';

/*
 * The website of a token request (api-log.ts): the token endpoint's requests carry only the
 * client's credentials, so a line is led to its grant, and so to its website, by the secret it
 * holds, when its batch is written.
 */

/** What a line of the request log holds that leads to its grant. */
export interface TokenLine {
  /** Unset for a token request until its grant is found. */
  websiteId: string | undefined;
  /** The client of the request's Basic credentials. */
  credentialId: string;
  requestBody: unknown;
  responseBody: unknown;
}

/** The secret a token request's line leads to its grant by: the access token issued, or the code or refresh token presented. */
function grantSecret(line: TokenLine): { table: 'access' | 'code' | 'refresh'; digest: Buffer } | undefined {
  const issued = parseJson(line.responseBody);
  if (typeof issued?.access_token === 'string')
    return { table: 'access', digest: digest(issued.access_token) };
  const fields = (line.requestBody ?? {}) as Record<string, unknown>;
  if (typeof fields.code === 'string' && fields.code) return { table: 'code', digest: digest(fields.code) };
  if (typeof fields.refresh_token === 'string' && fields.refresh_token)
    return { table: 'refresh', digest: digest(fields.refresh_token) };
  return undefined;
}

function parseJson(payload: unknown): Record<string, unknown> | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  try {
    const value: unknown = JSON.parse(String(payload));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The website of each token request of a batch: its grant's, when the grant belongs to the
 * client that asked (a client presenting another's code is logged nowhere).
 */
export async function tokenWebsites<L extends TokenLine>(db: Db, batch: L[]): Promise<Map<L, string>> {
  const found = new Map<L, string>();
  const wanted = batch.flatMap((line) => {
    if (line.websiteId !== undefined) return [];
    const secret = grantSecret(line);
    return secret ? [{ line, ...secret }] : [];
  });
  if (!wanted.length) return found;
  const digests = (table: string) => wanted.filter((w) => w.table === table).map((w) => w.digest);
  const [access, codes, refresh] = await Promise.all([
    lookup(digests('access'), () =>
      db
        .selectFrom('oauth_access_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['t.token_digest as digest', 'g.website_id', 'g.client_id'])
        .where('t.token_digest', 'in', digests('access'))
        .execute(),
    ),
    lookup(digests('code'), () =>
      db
        .selectFrom('oauth_grants as g')
        .select(['g.code_digest as digest', 'g.website_id', 'g.client_id'])
        .where('g.code_digest', 'in', digests('code'))
        .execute(),
    ),
    lookup(digests('refresh'), () =>
      db
        .selectFrom('oauth_refresh_tokens as r')
        .innerJoin('oauth_grants as g', 'g.id', 'r.grant_id')
        .select(['r.token_digest as digest', 'g.website_id', 'g.client_id'])
        .where('r.token_digest', 'in', digests('refresh'))
        .execute(),
    ),
  ]);
  const byTable = { access, code: codes, refresh };
  for (const want of wanted) {
    const grant = byTable[want.table].get(want.digest.toString('hex'));
    if (grant && grant.client_id === want.line.credentialId) found.set(want.line, grant.website_id);
  }
  return found;
}

type GrantRow = { digest: Buffer; website_id: string; client_id: string };

async function lookup(
  digests: Buffer[],
  query: () => Promise<GrantRow[]>,
): Promise<Map<string, { website_id: string; client_id: string }>> {
  if (!digests.length) return new Map();
  return new Map((await query()).map((row) => [row.digest.toString('hex'), row]));
}
