import { OAuthError } from '../../errors.ts';
import { digest } from '../../secrets.ts';
import { newPair, type GrantDeps, type TokenResponse } from '../tokens.ts';
import { RefreshBatches } from './refresh-batches.ts';
import { requiredField, type TokenRequest } from './request.ts';

/** Pairs refreshed from one token and not yet confirmed, beyond which a refresh is refused. */
export const MAX_UNCONFIRMED = 5;

const BAD_TOKEN = 'refresh_token: unknown, expired or revoked';

/** One queue of refreshes a database pool: a process's refreshes share their round trips. */
const batches = new WeakMap<GrantDeps['pool'], RefreshBatches>();

function batchesOf(pool: GrantDeps['pool']): RefreshBatches {
  let queue = batches.get(pool);
  if (!queue) batches.set(pool, (queue = new RefreshBatches(pool, MAX_UNCONFIRMED)));
  return queue;
}

/**
 * grant_type=refresh_token, with the rotation rule of api-details 8, in one round trip: the
 * database's oauth_refresh function (migration 014-token-functions) runs every step under the grant's row lock,
 * so parallel refreshes of one family, a confirmation and a revocation happen one after another
 * and never answer 5xx (security RT-11, RT-12). The new pair is made here and stored there only
 * when the refresh is allowed. Refreshes arriving together share a round trip and a commit
 * (refresh-batches.ts).
 */
export async function refreshTokens(
  deps: GrantDeps,
  client: { id: string },
  request: TokenRequest,
): Promise<TokenResponse> {
  const presented = digest(requiredField(request, 'refresh_token'));
  const now = deps.clock.now();
  const { response, access, refresh } = newPair(deps, now, true);
  const outcome = await batchesOf(deps.pool).refresh({
    presented,
    clientId: client.id,
    moment: now,
    refreshId: refresh!.id,
    refreshDigest: refresh!.digest,
    refreshExpires: refresh!.expiresAt,
    accessDigest: access.digest,
    accessExpires: access.expiresAt,
    auditId: deps.ids.objectId(),
    ip: request.ip,
  });
  switch (outcome) {
    case 'ok':
      return response;
    case 'replay':
      // A token already superseded by a confirmed pair: the grant was revoked (RT-8).
      deps.tokens?.reset();
      throw new OAuthError('invalid_grant', BAD_TOKEN);
    case 'too_many':
      throw new OAuthError(
        'invalid_grant',
        `refresh_token: ${MAX_UNCONFIRMED} refreshes of it await confirmation; use the newest pair`,
      );
    default:
      throw new OAuthError('invalid_grant', BAD_TOKEN);
  }
}
