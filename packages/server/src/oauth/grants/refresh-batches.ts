import type pg from 'pg';
import { callInOrder, type Argument } from '../../db/call-batches.ts';
import { STORED_PAIR, type StoredPair } from './stored-pair.ts';

export type Outcome = 'ok' | 'invalid' | 'replay' | 'too_many';

/** One refresh's arguments of oauth_refresh (db/functions/oauth_refresh.sql), but the limit. */
export interface RefreshCall extends StoredPair {
  presented: Buffer;
  clientId: string;
  moment: Date;
  ip: string;
}

const args = (maxUnconfirmed: number): Argument<RefreshCall>[] => [
  ['bytea', (c) => c.presented],
  ['text', (c) => c.clientId],
  ['timestamptz', (c) => c.moment],
  ['int', () => maxUnconfirmed],
  ...STORED_PAIR,
  ['text', (c) => c.ip],
];

/**
 * Refreshes as one statement (db/call-batches.ts): each is one call of oauth_refresh, in order,
 * under its grant's row lock. Batching took the refresh grant from 1.58 to 2.49 times
 * node-oidc-provider on PostgreSQL (bench/README.md, "OAuth benchmark").
 */
export function sendRefreshes(
  pool: pg.Pool,
  maxUnconfirmed: number,
  calls: RefreshCall[],
): Promise<Outcome[]> {
  return callInOrder(pool, 'oauth_refresh', args(maxUnconfirmed), calls);
}
