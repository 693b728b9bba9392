import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { queryPrepared } from '../../db/database.ts';
import { OAuthError } from '../../errors.ts';
import { digest } from '../../secrets.ts';
import { newPair, type GrantDeps, type TokenResponse } from '../tokens.ts';
import { requiredField, type TokenRequest } from './request.ts';

const BAD_CODE = 'code: unknown, expired or already used';

/** What the database's oauth_redeem_code function says of a code (migration 014-token-functions). */
const REFUSED: Record<string, string> = {
  invalid: BAD_CODE,
  replay: BAD_CODE,
  redirect: 'redirect_uri: not the one of the authorization request',
  pkce_required: 'code_verifier: required (PKCE)',
  pkce_mismatch: 'code_verifier: does not match the code_challenge',
  pkce_unexpected: 'code_verifier: the authorization request sent no code_challenge',
};

/** RFC 7636 4.2: the S256 challenge of a verifier. */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * grant_type=authorization_code (api-details 8), in one round trip. The code is burned by its
 * first presentation, whatever comes of it; a second presentation revokes every token the first
 * one produced (security AC-3). The pair is made here and stored only when every check passes;
 * a refresh token only for offline access.
 */
export async function redeemCode(
  deps: GrantDeps,
  client: { id: string },
  request: TokenRequest,
): Promise<TokenResponse> {
  const code = requiredField(request, 'code');
  const redirectUri = requiredField(request, 'redirect_uri');
  const verifier = request.fields.code_verifier;
  const now = deps.clock.now();
  const { response, access, refresh } = newPair(deps, now, true);
  const [row] = await queryPrepared(
    deps.pool,
    sql<{ outcome: string }>`
      SELECT oauth_redeem_code(${digest(code)}, ${client.id}, ${now}, ${redirectUri},
                               ${verifier === undefined ? null : s256(verifier)},
                               ${refresh!.id}, ${refresh!.digest}, ${refresh!.expiresAt},
                               ${access.digest}, ${access.expiresAt}, ${deps.ids.objectId()}) AS outcome`.compile(
      deps.db,
    ),
  );
  const outcome = row!.outcome;
  if (outcome === 'online') {
    // No offline access: the access token alone.
    const { refresh_token: _token, refresh_token_expires_at: _expires, ...online } = response;
    return online;
  }
  if (outcome === 'offline') return response;
  if (outcome === 'replay') deps.tokens?.reset();
  throw new OAuthError('invalid_grant', REFUSED[outcome] ?? BAD_CODE);
}
