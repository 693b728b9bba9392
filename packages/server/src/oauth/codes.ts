import { randomBytes } from 'node:crypto';
import { recordAudit } from '../sites/audit.ts';
import { digest } from '../shared/secrets.ts';
import type { Scope } from '../shared/scopes.ts';
import type { TokenDeps } from './tokens.ts';

export const CODE_SECONDS = 120;

export interface CodeRequest {
  clientId: string;
  websiteId: string;
  ownerId: string;
  scopes: readonly Scope[];
  offline: boolean;
  redirectUri: string;
  /** PKCE S256 challenge, when the authorize request sent one. */
  codeChallenge: string | null;
  ip?: string;
}

/**
 * The owner's Allow: a new grant and its code, 192 random bits in 48 hex characters
 * (alphanumeric, security AC-1), valid two minutes and stored only as a digest.
 */
export async function issueCode(deps: TokenDeps, request: CodeRequest): Promise<string> {
  const code = randomBytes(24).toString('hex');
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const grantId = deps.ids.objectId();
    await trx
      .insertInto('oauth_grants')
      .values({
        id: grantId,
        client_id: request.clientId,
        website_id: request.websiteId,
        scopes: [...request.scopes],
        offline: request.offline,
        redirect_uri: request.redirectUri,
        code_challenge: request.codeChallenge,
        code_digest: digest(code),
        code_expires_at: new Date(now.getTime() + CODE_SECONDS * 1000),
        created_at: now,
      })
      .execute();
    await recordAudit(deps, trx, {
      kind: 'grant',
      ownerId: request.ownerId,
      websiteId: request.websiteId,
      clientId: request.clientId,
      ip: request.ip,
      detail: { scopes: request.scopes, offline: request.offline },
    });
  });
  return code;
}
