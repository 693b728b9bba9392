import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock.ts';
import { closeWindow } from '../db/change-clock.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { DatabaseHandle } from '../db/database.ts';
import type { Window } from '../shared/iso-time.ts';
import { VersionedCache } from '../shared/versioned-cache.ts';

/** A row of a list page: which document, at which version (its modifiedOn in milliseconds). */
export interface Head {
  id: string;
  version: number;
}

/** Heads kept with the name of their content (see pageHeads). */
interface NamedHeads {
  rows: Head[];
  name: string;
}

/** About 1,000 pages of heads (4 KB each) and 70 bodies of 115 KB: what many clients poll. */
const HEADS_BYTES = 4 * 1024 * 1024;
const BODIES_BYTES = 8 * 1024 * 1024;
/** Websites whose change counts are kept; past it they are all forgotten, which is safe. */
const MAX_COUNTED_WEBSITES = 100_000;

/**
 * List pages served from memory, in two layers; one cache for products, one for orders.
 *
 * Heads: the (id, version) rows a list query returned, by website and query. Only trusted while
 * the change feed is live. Each website has a change count, bumped by its notice (`catalog` when
 * any product of it is created, changed or deleted, by anyone; `orders` likewise for its orders)
 * and by this instance's own writes;
 * the count is part of the key, so a change makes every older page of the website unreachable
 * at once, including one a racing read stores after the change (it read the count before).
 *
 * Bodies: finished first pages by page URL and the name of their heads' content (website, query,
 * each row's id and version), named once when the heads are kept. A body is made only of what
 * its name says, so it needs no invalidation, and a change of the website that leaves a page's
 * rows as they were (a product further down the list renamed) leaves the page's body found:
 * clients polling one page get the same bytes without a 115 KB copy, a cursor signed or the
 * page's documents put together again.
 */
export class ListCache {
  private readonly heads = new VersionedCache<NamedHeads>(HEADS_BYTES, ({ rows }) => 128 + rows.length * 80);
  private readonly bodies = new VersionedCache<Buffer>(BODIES_BYTES, (body) => body.length + 2048);
  private readonly changes = new Map<string, number>();
  /** Queries under way by heads key (shared()). */
  private readonly reading = new Map<string, Promise<Head[]>>();
  private epoch = 0;

  constructor(
    private readonly feed?: ChangeFeed,
    notice: 'catalog' | 'orders' = 'catalog',
  ) {
    feed?.on('change', (kind: string, websiteId: string) => {
      if (kind === notice) this.changed(websiteId);
    });
    feed?.on('live', () => {
      this.changes.clear();
      this.epoch++;
    });
  }

  /**
   * The heads of a page of the website's list: from memory while they are current, else from
   * `read`, kept for the next request. `query` names the page (its filters and position). While
   * the feed is live, `key` names the content of these heads: a body made of them is kept under
   * it (`keepBody`), so a page polled again is found without building its key from its rows.
   */
  async pageHeads(
    websiteId: string,
    query: string,
    read: () => Promise<Head[]>,
  ): Promise<{ rows: Head[]; key?: string }> {
    const key = this.headsKey(websiteId, query); // before the query: see the class comment
    if (this.feed?.live !== true) return { rows: await read() };
    let heads = this.heads.at(key, 0);
    if (!heads) {
      const rows = await this.shared(key, read);
      // Reads racing for one key: the heads kept first stay.
      heads = this.heads.at(key, 0) ?? { rows, name: contentName(websiteId, query, rows) };
      this.heads.set(key, 0, heads, this.heads.generation);
    }
    return { rows: heads.rows, key: heads.name };
  }

  /**
   * One query for the readers that miss the same key at once: after a change of the website every
   * poller misses its page together, and each would otherwise ask the database for it. A reader
   * joining gets what a cache hit under the key would have given it a moment later.
   */
  private shared(key: string, read: () => Promise<Head[]>): Promise<Head[]> {
    let reading = this.reading.get(key);
    if (!reading) {
      reading = read().finally(() => this.reading.delete(key));
      this.reading.set(key, reading);
    }
    return reading;
  }

  /** Read before the query; names where its result is kept. */
  private headsKey(websiteId: string, query: string): string {
    return `${this.epoch}:${this.changes.get(websiteId) ?? 0}:${websiteId}:${query}`;
  }

  /** A list of the website changed: every page of it kept so far is out of date. */
  changed(websiteId: string): void {
    if (this.changes.size >= MAX_COUNTED_WEBSITES && !this.changes.has(websiteId)) {
      this.changes.clear();
      this.epoch++;
    }
    this.changes.set(websiteId, (this.changes.get(websiteId) ?? 0) + 1);
  }

  cachedBody(key: string): Buffer | undefined {
    return this.bodies.at(key, 0);
  }

  keepBody(key: string, body: Buffer): void {
    this.bodies.set(key, 0, body, this.bodies.generation);
  }
}

/** The name of a page's heads: equal for equal rows of one query of one website. */
function contentName(websiteId: string, query: string, rows: Head[]): string {
  const content = rows.map(({ id, version }) => `${id}\0${version}`).join('\0');
  return createHash('sha256').update(`${websiteId}\0${query}\0${content}`).digest('base64url');
}

/**
 * The heads of a list page (products, orders), and the name of the page's body while they are
 * the cache's (ListCache.pageHeads). A window (modifiedAfter/modifiedBefore) is read from the
 * database once the changes stamped in it are visible (a cached page may predate some of them),
 * so a reader whose next window starts at its end misses none; any other page comes from `lists`
 * unless `fresh` is asked (settled-page.ts). A page read from the database has no name: its body
 * is built again each time.
 */
export async function listPageHeads(
  deps: { pool: DatabaseHandle['pool']; clock: Clock },
  lists: ListCache,
  websiteId: string,
  filter: { window?: Window },
  fresh: boolean,
  read: () => Promise<Head[]>,
): Promise<{ rows: Head[]; key?: string }> {
  if (filter.window) {
    await closeWindow(deps, websiteId, filter.window.before);
    return { rows: await read() };
  }
  return fresh ? { rows: await read() } : lists.pageHeads(websiteId, JSON.stringify(filter), read);
}
