import { recordAudit } from '../../audit.ts';
import { OAuthError } from '../../errors.ts';
import { digest } from '../../secrets.ts';
import {
  confirmPair,
  lockGrant,
  mintPair,
  revokeGrant,
  type TokenDeps,
  type TokenResponse,
} from '../tokens.ts';
import { requiredField, type TokenRequest } from './request.ts';

/** Pairs refreshed from one token and not yet confirmed, beyond which a refresh is refused. */
export const MAX_UNCONFIRMED = 5;

const BAD_TOKEN = 'refresh_token: unknown, expired or revoked';

/**
 * grant_type=refresh_token, with the rotation rule of api-details 8. Every step runs under the
 * grant's row lock, so parallel refreshes of one family, a confirmation and a revocation happen
 * one after another and never answer 5xx (security RT-11, RT-12).
 */
export async function refreshTokens(
  deps: TokenDeps,
  client: { id: string },
  request: TokenRequest,
): Promise<TokenResponse> {
  const tokenDigest = digest(requiredField(request, 'refresh_token'));
  const effects = { revoked: false };
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('oauth_refresh_tokens')
      .select('grant_id')
      .where('token_digest', '=', tokenDigest)
      .executeTakeFirst();
    if (!found) return new OAuthError('invalid_grant', BAD_TOKEN);
    const grant = await lockGrant(trx, found.grant_id);
    // Another client's token is refused without telling it anything (security RT-1).
    if (!grant || grant.client_id !== client.id || grant.revoked_at) {
      return new OAuthError('invalid_grant', BAD_TOKEN);
    }
    // Read again under the lock: a confirmation may have retired it meanwhile.
    const token = await trx
      .selectFrom('oauth_refresh_tokens')
      .selectAll()
      .where('token_digest', '=', tokenDigest)
      .executeTakeFirstOrThrow();
    const now = deps.clock.now();
    if (token.expires_at <= now) return new OAuthError('invalid_grant', BAD_TOKEN);
    if (token.retired_at) {
      if (token.retired_reason === 'confirmed') {
        // A token already superseded by a confirmed pair: someone holds a stolen copy (RT-8).
        await revokeGrant(deps, trx, grant.id, 'refresh_replay');
        effects.revoked = true;
        await recordAudit(deps, trx, {
          kind: 'refresh_replay',
          websiteId: grant.website_id,
          clientId: grant.client_id,
          ip: request.ip,
          detail: { grantId: grant.id },
        });
      }
      return new OAuthError('invalid_grant', BAD_TOKEN);
    }
    // Refreshing with the newest refresh token confirms its pair (RT-10).
    if (!token.confirmed_at) await confirmPair(deps, trx, token.id, token.parent_id);
    const { unconfirmed } = await trx
      .selectFrom('oauth_refresh_tokens')
      .select((eb) => eb.fn.countAll<string>().as('unconfirmed'))
      .where('parent_id', '=', token.id)
      .where('confirmed_at', 'is', null)
      .where('retired_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(unconfirmed) >= MAX_UNCONFIRMED) {
      return new OAuthError(
        'invalid_grant',
        `refresh_token: ${MAX_UNCONFIRMED} refreshes of it await confirmation; use the newest pair`,
      );
    }
    return mintPair(deps, trx, grant.id, { parentId: token.id, confirmed: false });
  });
  if (effects.revoked) deps.tokens?.reset();
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}
