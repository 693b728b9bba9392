import type { Argument } from '../../db/call-batches.ts';
import type { Ids } from '../../shared/ids.ts';
import type { NewPair } from '../tokens.ts';

/**
 * What oauth_redeem_code and oauth_refresh (db/functions/, one file each) store of a new pair
 * with its refresh token (digests only), and the id of the audit event they record: the same
 * arguments, in the same order, of both.
 */
export interface StoredPair {
  refreshId: string;
  refreshDigest: Buffer;
  refreshExpires: Date;
  accessDigest: Buffer;
  accessExpires: Date;
  auditId: string;
}

export const STORED_PAIR: Argument<StoredPair>[] = [
  ['text', (c) => c.refreshId],
  ['bytea', (c) => c.refreshDigest],
  ['timestamptz', (c) => c.refreshExpires],
  ['bytea', (c) => c.accessDigest],
  ['timestamptz', (c) => c.accessExpires],
  ['text', (c) => c.auditId],
];

/** The stored part of a pair made with its refresh token (newPair(…, true)). */
export function storedPair(ids: Ids, { access, refresh }: NewPair): StoredPair {
  if (!refresh) throw new Error('storedPair: the pair was made without its refresh token');
  return {
    refreshId: refresh.id,
    refreshDigest: refresh.digest,
    refreshExpires: refresh.expiresAt,
    accessDigest: access.digest,
    accessExpires: access.expiresAt,
    auditId: ids.objectId(),
  };
}
