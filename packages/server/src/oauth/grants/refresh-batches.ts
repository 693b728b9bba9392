import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { queryPrepared } from '../../db/database.ts';
import { isDeadlock } from '../../db/deadlock.ts';

export type Outcome = 'ok' | 'invalid' | 'replay' | 'too_many';

/** One refresh's arguments of oauth_refresh (migration 014-token-functions), but the limit. */
export interface RefreshCall {
  presented: Buffer;
  clientId: string;
  moment: Date;
  refreshId: string;
  refreshDigest: Buffer;
  refreshExpires: Date;
  accessDigest: Buffer;
  accessExpires: Date;
  auditId: string;
  ip: string;
}

interface Waiting {
  call: RefreshCall;
  resolve(outcome: Outcome): void;
  reject(err: unknown): void;
}

/** Refreshes sent in one round trip at most: a batch holds its grants' locks until its commit. */
const MAX_BATCH = 64;

/**
 * Every refresh is one call of oauth_refresh, and calls waiting while another batch is in the
 * database go together in the next: one statement, one transaction, one commit for all of them.
 * Each call still runs every step of the rotation under its grant's row lock, in arrival order,
 * and sees what the calls before it in the batch did; nothing is answered before the commit. With
 * none in flight, a refresh is sent once the requests read with it have joined it.
 *
 * Much of a refresh's cost in the database is that of its transaction (the protocol's messages,
 * the snapshot, the commit and its WAL flush): shared by a batch, it is paid once (bench/README.md,
 * "OAuth benchmark": from 1.58 to 2.49 times node-oidc-provider on PostgreSQL).
 *
 * Two batches of two processes can lock the same grants in opposite orders; PostgreSQL then ends
 * one of them, whose refreshes are sent again, each alone. Any other error fails the whole batch,
 * as it would have failed each refresh.
 */
export class RefreshBatches {
  private waiting: Waiting[] = [];
  private inFlight = false;
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxUnconfirmed: number,
  ) {}

  refresh(call: RefreshCall): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      this.waiting.push({ call, resolve, reject });
      // Sent after the requests read in this turn of the event loop, which join it.
      if (this.inFlight || this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.next();
      });
    });
  }

  private next(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    this.inFlight = true;
    void this.run(this.waiting.splice(0, MAX_BATCH)).finally(() => {
      this.inFlight = false;
      this.next();
    });
  }

  private async run(batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await this.send(batch.map((w) => w.call));
      batch.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (err) {
      if (!isDeadlock(err) || batch.length === 1) {
        batch.forEach((w) => w.reject(err));
        return;
      }
      await Promise.all(
        batch.map((w) => this.send([w.call]).then(([outcome]) => w.resolve(outcome!), w.reject)),
      );
    }
  }

  private async send(calls: RefreshCall[]): Promise<Outcome[]> {
    const column = <K extends keyof RefreshCall>(key: K) => calls.map((call) => call[key]);
    const query = CompiledQuery.raw(
      `SELECT n, oauth_refresh(p, c, m, $1, ri, rd, re, ad, ae, au, ip) AS outcome
              FROM unnest($2::bytea[], $3::text[], $4::timestamptz[], $5::text[], $6::bytea[],
                          $7::timestamptz[], $8::bytea[], $9::timestamptz[], $10::text[], $11::text[])
                   WITH ORDINALITY AS x(p, c, m, ri, rd, re, ad, ae, au, ip, n)`,
      [
        this.maxUnconfirmed,
        column('presented'),
        column('clientId'),
        column('moment'),
        column('refreshId'),
        column('refreshDigest'),
        column('refreshExpires'),
        column('accessDigest'),
        column('accessExpires'),
        column('auditId'),
        column('ip'),
      ],
    );
    const rows = await queryPrepared<{ n: string; outcome: Outcome }>(this.pool, query as never);
    const outcomes: Outcome[] = new Array(calls.length);
    for (const row of rows) outcomes[Number(row.n) - 1] = row.outcome;
    return outcomes;
  }
}
