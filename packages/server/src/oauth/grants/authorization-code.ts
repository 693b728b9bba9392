import { createHash } from 'node:crypto';
import { batchesPerPool, callInOrder, type Argument } from '../../db/call-batches.ts';
import { OAuthError } from '../../shared/errors.ts';
import { digest } from '../../shared/secrets.ts';
import { newPair, type GrantDeps, type TokenResponse } from '../tokens.ts';
import { requiredField, type TokenRequest } from './request.ts';
import { STORED_PAIR, storedPair, type StoredPair } from './stored-pair.ts';

const BAD_CODE = 'code: unknown, expired or already used';

/** What the database's oauth_redeem_code function says of a code (db/functions/oauth_redeem_code.sql). */
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

/** One exchange's arguments of oauth_redeem_code (db/functions/oauth_redeem_code.sql). */
export interface RedeemCall extends StoredPair {
  presented: Buffer;
  clientId: string;
  moment: Date;
  redirectUri: string;
  verifierS256: string | null;
}

const ARGUMENTS: Argument<RedeemCall>[] = [
  ['bytea', (c) => c.presented],
  ['text', (c) => c.clientId],
  ['timestamptz', (c) => c.moment],
  ['text', (c) => c.redirectUri],
  ['text', (c) => c.verifierS256],
  ...STORED_PAIR,
];

/** Exchanges arriving together share a round trip and a commit (db/call-batches.ts), in order. */
export const codeExchanges = batchesPerPool((pool, calls: RedeemCall[]) =>
  callInOrder<RedeemCall, string>(pool, 'oauth_redeem_code', ARGUMENTS, calls),
);

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
  const pair = newPair(deps, now, true);
  const { response } = pair;
  const outcome = await codeExchanges(deps.pool).call({
    presented: digest(code),
    clientId: client.id,
    moment: now,
    redirectUri,
    verifierS256: verifier === undefined ? null : s256(verifier),
    ...storedPair(deps.ids, pair),
  });
  if (outcome === 'online') {
    // No offline access: the access token alone.
    const { refresh_token: _token, refresh_token_expires_at: _expires, ...online } = response;
    return online;
  }
  if (outcome === 'offline') return response;
  if (outcome === 'replay') deps.tokens?.reset();
  throw new OAuthError('invalid_grant', REFUSED[outcome] ?? BAD_CODE);
}
