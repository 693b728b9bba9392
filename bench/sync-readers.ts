/**
 * Sync clients for the inventory benchmark's `--sync` option: one of each kind docs/api.md names
 * (resuming with the cursor, with `modifiedAfter` = newest seen, with a window ending at "now"),
 * reading the products list from where they stopped, again and again, while the adjustments
 * run. Each keeps the newest version it has seen of every product; at the end, after one more
 * read, each must hold every product's final state.
 */
import http from 'node:http';
import { send } from './harness.ts';

const LIST = '/1.1/commerce/products';
const EPOCH = '1970-01-01T00:00:00.000Z';
const OPEN_END = '9999-12-31T23:59:59.999Z';

interface Product {
  id: string;
  modifiedOn: string;
}

interface ListBody {
  products: Product[];
  pagination: { nextPageCursor: string | null };
}

export interface SyncReader {
  kind: 'cursor' | 'modifiedAfter' | 'window';
  /** The newest version seen of each product, as sent. */
  seen: Map<string, { modifiedOn: string; json: string }>;
  /** Milliseconds of each page read. */
  latencies: number[];
  /** Reads from where it stopped to the end of the list. */
  catchUp(): Promise<void>;
}

export function syncReaders(port: number, headers: Record<string, string>): SyncReader[] {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });

  function reader(
    kind: SyncReader['kind'],
    start: () => Record<string, string>,
    done: (last: Record<string, string>, reader: SyncReader) => void,
  ): SyncReader {
    const self: SyncReader = {
      kind,
      seen: new Map(),
      latencies: [],
      async catchUp() {
        let query = start();
        for (;;) {
          const res = await send(
            port,
            'GET',
            `${LIST}?${new URLSearchParams(query)}`,
            headers,
            undefined,
            10_000,
            agent,
          );
          if (res.status !== 200) throw new Error(`${kind} reader: ${res.status} ${res.body.toString()}`);
          self.latencies.push(res.ms);
          const body = JSON.parse(res.body.toString()) as ListBody;
          for (const p of body.products) {
            const known = self.seen.get(p.id);
            if (!known || known.modifiedOn <= p.modifiedOn)
              self.seen.set(p.id, { modifiedOn: p.modifiedOn, json: JSON.stringify(p) });
          }
          if (!body.pagination.nextPageCursor) break;
          query = { cursor: body.pagination.nextPageCursor };
        }
        done(query, self);
      },
    };
    return self;
  }

  let resume: Record<string, string> = {};
  let newest = EPOCH;
  let windowStart = EPOCH;
  let windowEnd = EPOCH;
  return [
    reader(
      'cursor',
      () => resume,
      (last) => (resume = last),
    ),
    reader(
      'modifiedAfter',
      () => ({ modifiedAfter: newest, modifiedBefore: OPEN_END }),
      (_, self) => {
        for (const { modifiedOn } of self.seen.values()) if (modifiedOn > newest) newest = modifiedOn;
      },
    ),
    reader(
      'window',
      () => {
        windowEnd = new Date().toISOString();
        return { modifiedAfter: windowStart, modifiedBefore: windowEnd };
      },
      () => (windowStart = windowEnd),
    ),
  ];
}

/** The readers' products that are not in the state `current` gives (id to the product as sent). */
export function missedFinalStates(reader: SyncReader, current: Map<string, string>): string[] {
  return [...current].filter(([id, json]) => reader.seen.get(id)?.json !== json).map(([id]) => id);
}
