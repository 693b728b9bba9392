import { sql } from 'kysely';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import type { FaultRulesTable } from '../db/schema.ts';
import { mulberry32 } from './random.ts';

/** A rule as an instance holds it: the row, its compiled pattern, and its random numbers so far. */
export interface LiveRule {
  row: FaultRulesTable;
  pattern: RegExp;
  /** The rule's next number in [0, 1): kept across reloads of its website's rules. */
  draw: () => number;
  /** Where in a latency range each picked request falls: numbers of their own, so `draw` stays one a request. */
  span: () => number;
  /** Its count ran out here (the database said so): no more updates asked for it. */
  exhausted: boolean;
}

/** A path pattern as a regular expression: `*` matches any run of characters, the rest as written. */
export function compilePattern(path: string): RegExp {
  const source = path
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/**
 * Every website's fault rules, in this instance's memory: a request of a website without rules
 * looks up one map and goes on. Read whole at the first request, then kept current through the
 * change feed (kind `fault_rules`, the website's id: its rules are read again) and read again
 * whenever the feed comes back ('live'). The service reads a website's rules again itself after a
 * change, so the instance that made it applies it at once.
 */
export class FaultRules {
  private byWebsite = new Map<string, LiveRule[]>();
  /** Rules narrowed to an app, by client id: the token endpoint knows only the client. */
  private byClient = new Map<string, LiveRule[]>();
  private loaded: Promise<void> | undefined;
  private ready = false;

  constructor(
    private readonly db: Db,
    feed?: ChangeFeed,
  ) {
    feed?.on('change', (kind: string, websiteId: string) => {
      if (kind === 'fault_rules') this.reloadWebsite(websiteId).catch(() => {});
    });
    // A failed read leaves the rules as they were; the next time the feed is back reads again.
    feed?.on('live', () => {
      this.reload().catch(() => {});
    });
  }

  /** True once the rules were read: until then a request waits for the first read. */
  get isReady(): boolean {
    return this.ready;
  }

  /** The first read of every rule, shared by the requests that arrive before it ends. */
  load(): Promise<void> {
    this.loaded ??= this.reload().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /** Reads every rule again (the feed is back, or the data was replaced). */
  async reload(): Promise<void> {
    const rows = await this.db
      .selectFrom('fault_rules')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const byWebsite = new Map<string, FaultRulesTable[]>();
    for (const row of rows) byWebsite.set(row.website_id, [...(byWebsite.get(row.website_id) ?? []), row]);
    const websites = new Map<string, LiveRule[]>();
    for (const [websiteId, websiteRows] of byWebsite)
      websites.set(websiteId, this.live(websiteId, websiteRows));
    this.byWebsite = websites;
    this.indexClients();
    this.ready = true;
  }

  /** Reads one website's rules again, after a change of them. */
  async reloadWebsite(websiteId: string): Promise<void> {
    const rows = await this.db
      .selectFrom('fault_rules')
      .selectAll()
      .where('website_id', '=', websiteId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const rules = this.live(websiteId, rows);
    if (rules.length) this.byWebsite.set(websiteId, rules);
    else this.byWebsite.delete(websiteId);
    this.indexClients();
  }

  /** A website's rules, in the order they were added; undefined when it has none (most requests). */
  ofWebsite(websiteId: string): readonly LiveRule[] | undefined {
    return this.byWebsite.get(websiteId);
  }

  /** The rules narrowed to an app, of every website. */
  ofClient(clientId: string): readonly LiveRule[] | undefined {
    return this.byClient.get(clientId);
  }

  /**
   * Takes one fault of a rule with a count, across every instance: false when none remains (the
   * rule then stays quiet here). A rule without a count always gives one.
   */
  async take(rule: LiveRule): Promise<boolean> {
    if (rule.row.remaining === null) return true;
    if (rule.exhausted) return false;
    const taken = await sql<{ remaining: number }>`
      UPDATE fault_rules SET remaining = remaining - 1
      WHERE id = ${rule.row.id} AND remaining > 0
      RETURNING remaining`.execute(this.db);
    const left = taken.rows[0];
    if (!left) {
      rule.exhausted = true;
      return false;
    }
    if (left.remaining === 0) rule.exhausted = true;
    return true;
  }

  /** The rows as live rules, keeping the random numbers (and the count's end) of rules already held. */
  private live(websiteId: string, rows: FaultRulesTable[]): LiveRule[] {
    const held = new Map((this.byWebsite.get(websiteId) ?? []).map((rule) => [rule.row.id, rule]));
    return rows.map((row) => {
      const before = held.get(row.id);
      return {
        row,
        pattern: before?.pattern ?? compilePattern(row.path),
        draw: before?.draw ?? mulberry32(row.seed),
        span: before?.span ?? mulberry32(row.seed ^ 0x5bd1e995),
        exhausted: row.remaining !== null && row.remaining <= 0,
      };
    });
  }

  private indexClients(): void {
    const byClient = new Map<string, LiveRule[]>();
    for (const rules of this.byWebsite.values()) {
      for (const rule of rules) {
        const clientId = rule.row.client_id;
        if (clientId) byClient.set(clientId, [...(byClient.get(clientId) ?? []), rule]);
      }
    }
    this.byClient = byClient;
  }
}
