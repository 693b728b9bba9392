/** A deleted or revoked key: no version of it may be cached again. */
export const GONE = Number.POSITIVE_INFINITY;

interface Entry<V> {
  version: number;
  /** Undefined for a tombstone: a newer version is known to exist, but not its value. */
  value: V | undefined;
  size: number;
  /** The count of moves to the recent end (see touch) when this entry was last moved there. */
  moved: number;
}

/** What a tombstone costs in the byte budget: a key and a number. */
const TOMBSTONE_BYTES = 64;

/**
 * Values by key and version, least recently used dropped first once over a byte budget. Kept
 * current by invalidate() calls from the change feed (db/change-feed.ts) and from this process's
 * own writes, so a value can be served without asking the database, which only latest() does and
 * only while the feed says no change can have been missed.
 *
 * A read of the database can race a change: the read sees version 1, the change to version 2
 * commits and is announced, then the read stores version 1. Two rules keep that stale value out:
 * an invalidation leaves a tombstone with the new version, and set() refuses anything older than
 * what is known; and set() takes the generation read before the query, which moves whenever a
 * tombstone is dropped (or everything is), so a read that may have lost its tombstone stores
 * nothing.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private currentGeneration = 0;
  /** Entries put or moved to the recent end of `entries` so far. */
  private moves = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
    /** True while every change is announced to invalidate(): latest() answers only then. */
    private readonly trusted: () => boolean = () => false,
  ) {}

  /** Read before the database query whose result is then given to set(). */
  get generation(): number {
    return this.currentGeneration;
  }

  /** The value at exactly this version, whatever the feed's state: a version never changes. */
  at(key: string, version: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || entry.value === undefined) return undefined;
    this.touch(key, entry);
    return entry.value;
  }

  /** The newest value, when no change to it can have gone unannounced. */
  latest(key: string): V | undefined {
    if (!this.trusted()) return undefined;
    const entry = this.entries.get(key);
    if (!entry || entry.value === undefined) return undefined;
    this.touch(key, entry);
    return entry.value;
  }

  set(key: string, version: number, value: V, generation: number): void {
    if (generation !== this.currentGeneration) return;
    const old = this.entries.get(key);
    if (old && old.version > version) return;
    this.put(key, { version, value, size: this.sizeOf(value), moved: 0 });
  }

  /** The key changed to `version` (GONE when deleted): older values are dropped and refused. */
  invalidate(key: string, version: number): void {
    const old = this.entries.get(key);
    if (old && old.version >= version) return;
    this.put(key, { version, value: undefined, size: TOMBSTONE_BYTES, moved: 0 });
  }

  /** Forgets everything, for when changes may have gone unannounced. */
  reset(): void {
    this.entries.clear();
    this.bytes = 0;
    this.currentGeneration++;
  }

  /**
   * Map order is recency order, and eviction takes the oldest. A hit in the recent half stays
   * where it is (fewer than half the entries were put or moved after it, so fewer are after it):
   * it is not next to go, and a hit on a busy entry costs no Map delete and insert. A hit in the
   * older half moves to the end. So an entry is evicted only if it was not read since half the
   * cache's worth of entries were put or moved after it.
   */
  private touch(key: string, entry: Entry<V>): void {
    // `moved` is the count before this entry's move, so the moves after it are the rest but one.
    if (this.moves - entry.moved - 1 < this.entries.size / 2) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    entry.moved = this.moves++;
  }

  private put(key: string, entry: Entry<V>): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.size;
    }
    this.entries.set(key, entry);
    entry.moved = this.moves++;
    this.bytes += entry.size;
    for (const [oldest, dropped] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= dropped.size;
      if (dropped.value === undefined) this.currentGeneration++;
    }
  }
}
