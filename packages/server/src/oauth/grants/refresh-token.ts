import { batchesPerPool } from '../../db/call-batches.ts';
import { OAuthError } from '../../shared/errors.ts';
import { digest } from '../../shared/secrets.ts';
import { newPair, type GrantDeps, type TokenResponse } from '../tokens.ts';
import { sendRefreshes, type RefreshCall } from './refresh-batches.ts';
import { requiredField, type TokenRequest } from './request.ts';
import { storedPair } from './stored-pair.ts';

/** Pairs refreshed from one token and not yet confirmed, beyond which a refresh is refused. */
export const MAX_UNCONFIRMED = 5;

const BAD_TOKEN = 'refresh_token: unknown, expired or revoked';

/** Refreshes arriving together share a round trip and a commit (db/call-batches.ts). */
const refreshes = batchesPerPool((pool, calls: RefreshCall[]) => sendRefreshes(pool, MAX_UNCONFIRMED, calls));

/**
 * grant_type=refresh_token, with the rotation rule of api-details 8, in one round trip: the
 * database's oauth_refresh function (db/functions/oauth_refresh.sql) runs every step under the
 * grant's row lock, so parallel refreshes of one family, a confirmation and a revocation happen
 * one after another and never answer 5xx (security RT-11, RT-12). The new pair is made here and
 * stored there only when the refresh is allowed.
 */
export async function refreshTokens(
  deps: GrantDeps,
  client: { id: string },
  request: TokenRequest,
): Promise<TokenResponse> {
  const presented = digest(requiredField(request, 'refresh_token'));
  const now = deps.clock.now();
  const pair = newPair(deps, now, true);
  const outcome = await refreshes(deps.pool).call({
    presented,
    clientId: client.id,
    moment: now,
    ...storedPair(deps.ids, pair),
    ip: request.ip,
  });
  switch (outcome) {
    case 'ok':
      return pair.response;
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
