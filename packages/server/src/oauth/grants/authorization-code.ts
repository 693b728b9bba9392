import { createHash } from 'node:crypto';
import { recordAudit } from '../../audit.ts';
import { OAuthError } from '../../errors.ts';
import { digest, secretsEqual } from '../../secrets.ts';
import { mintPair, revokeGrant, type TokenDeps, type TokenResponse } from '../tokens.ts';
import { requiredField, type TokenRequest } from './request.ts';

const BAD_CODE = 'code: unknown, expired or already used';

/** RFC 7636 4.2: the S256 challenge of a verifier. */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * grant_type=authorization_code (api-details 8). The code is burned by its first presentation,
 * whatever comes of it; a second presentation revokes every token the first one produced
 * (security AC-3). Errors that change something are thrown only after that change commits.
 */
export async function redeemCode(
  deps: TokenDeps,
  client: { id: string },
  request: TokenRequest,
): Promise<TokenResponse> {
  const code = requiredField(request, 'code');
  const redirectUri = requiredField(request, 'redirect_uri');
  const verifier = request.fields.code_verifier;
  const effects = { revoked: false };
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const grant = await trx
      .updateTable('oauth_grants')
      .set({ code_used_at: now })
      .where('code_digest', '=', digest(code))
      .where('code_used_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!grant) {
      const used = await trx
        .selectFrom('oauth_grants')
        .select(['id', 'website_id', 'client_id', 'revoked_at'])
        .where('code_digest', '=', digest(code))
        .executeTakeFirst();
      if (used && !used.revoked_at) {
        await revokeGrant(deps, trx, used.id, 'code_replay');
        effects.revoked = true;
        await recordAudit(deps, trx, {
          kind: 'code_replay',
          websiteId: used.website_id,
          clientId: used.client_id,
          detail: { grantId: used.id },
        });
      }
      return new OAuthError('invalid_grant', BAD_CODE);
    }
    if (grant.client_id !== client.id) return new OAuthError('invalid_grant', BAD_CODE); // burned (AC-5)
    if (grant.revoked_at || grant.code_expires_at <= now) return new OAuthError('invalid_grant', BAD_CODE);
    if (grant.redirect_uri !== redirectUri) {
      return new OAuthError('invalid_grant', 'redirect_uri: not the one of the authorization request');
    }
    if (grant.code_challenge !== null) {
      if (verifier === undefined) return new OAuthError('invalid_grant', 'code_verifier: required (PKCE)');
      if (!secretsEqual(s256(verifier), grant.code_challenge)) {
        return new OAuthError('invalid_grant', 'code_verifier: does not match the code_challenge');
      }
    } else if (verifier !== undefined) {
      return new OAuthError(
        'invalid_grant',
        'code_verifier: the authorization request sent no code_challenge',
      );
    }
    return mintPair(deps, trx, grant.id, grant.offline);
  });
  if (effects.revoked) deps.tokens?.reset();
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}
