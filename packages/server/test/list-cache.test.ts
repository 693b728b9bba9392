import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { ListCache, type Head } from '../src/catalog/list-cache.ts';
import type { ChangeFeed } from '../src/db/change-feed.ts';

/**
 * ListCache on its own: readers that miss one page at once (as every poller does after a change
 * of its website) share one query, a change still makes the next reader ask again, and a page's
 * body is found again after a change that left its rows as they were.
 */

/** A change feed as ListCache sees one: live, its notices not needed here. */
function liveFeed(): ChangeFeed {
  return Object.assign(new EventEmitter(), { live: true }) as unknown as ChangeFeed;
}

/** A query of the page that waits for open(), counting how often it was asked. */
function gatedRead(rows: Head[]) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const read = { queries: 0, open, query: async () => (read.queries++, await gate, rows) };
  return read;
}

test('readers missing one page at once share one query; after a change the next reader asks again', async () => {
  const lists = new ListCache(liveFeed());
  const first = gatedRead([{ id: 'a', version: 1 }]);
  const readers = [1, 2, 3].map(() => lists.pageHeads('site', '{}', first.query));
  first.open();
  const pages = await Promise.all(readers);
  assert.equal(first.queries, 1, 'one query for the three readers');
  for (const page of pages) assert.deepEqual(page.rows, [{ id: 'a', version: 1 }]);

  lists.changed('site');
  const second = gatedRead([{ id: 'a', version: 2 }]);
  second.open();
  assert.deepEqual((await lists.pageHeads('site', '{}', second.query)).rows, [{ id: 'a', version: 2 }]);
  assert.equal(second.queries, 1, 'the change made the page stale');
});

test('a shared query that fails fails each reader sharing it, and the next reader asks again', async () => {
  const lists = new ListCache(liveFeed());
  let queries = 0;
  const failing = async (): Promise<Head[]> => {
    queries++;
    await Promise.resolve();
    throw new Error('the database is gone');
  };
  const outcomes = await Promise.allSettled([1, 2].map(() => lists.pageHeads('site', '{}', failing)));
  assert.equal(queries, 1);
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  const page = await lists.pageHeads('site', '{}', async () => [{ id: 'b', version: 3 }]);
  assert.deepEqual(page.rows, [{ id: 'b', version: 3 }]);
});

test("a change of the website that leaves a page's rows as they were leaves its body found", async () => {
  const lists = new ListCache(liveFeed());
  const rows = [{ id: 'a', version: 1 }];
  const first = await lists.pageHeads('site', '{}', async () => rows);
  lists.keepBody(first.key!, Buffer.from('page of a@1'));

  lists.changed('site'); // say, product b renamed: it moves to the end of the list
  const unchanged = await lists.pageHeads('site', '{}', async () => [{ id: 'a', version: 1 }]);
  assert.equal(lists.cachedBody(unchanged.key!)?.toString(), 'page of a@1');

  lists.changed('site'); // a itself renamed
  const changed = await lists.pageHeads('site', '{}', async () => [{ id: 'a', version: 2 }]);
  assert.equal(lists.cachedBody(changed.key!), undefined);

  const otherQuery = await lists.pageHeads('site', '{"type":"PHYSICAL"}', async () => rows);
  const otherSite = await lists.pageHeads('other', '{}', async () => rows);
  assert.equal(lists.cachedBody(otherQuery.key!), undefined, 'another query of the same rows');
  assert.equal(lists.cachedBody(otherSite.key!), undefined, 'another website of the same rows');
});
