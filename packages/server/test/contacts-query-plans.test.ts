import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { selectContactPage, type ContactFilter } from '../src/customers/contacts-page.repo.ts';
import type { SortField } from '../src/customers/contacts.schemas.ts';
import { contactBody, createContact, query } from './helpers/contacts.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Contacts query pages when a selective range is on another field than the sort (issue 18): the
 * page is then sorted after filtering (contacts-page.repo.ts). The contacts and the pages must be
 * exactly those of the index-driven page, cursors included, ties by id.
 */

let ctx: TestContext;
let site: Site;

interface Row {
  id: string;
  orders: number;
  minor: number;
  last: Date | null;
  created: Date;
}
const rows: Row[] = [];
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');

before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
  for (let i = 0; i < 14; i++) {
    const c = await createContact(site, contactBody({ firstName: `P${i}`, lastName: `L${i % 3}` }));
    // Amounts and counts repeat, so that ties (by id) cross page boundaries; two never ordered.
    const orders = i < 2 ? 0 : 1 + (i % 4);
    const row: Row = {
      id: c.id,
      orders,
      minor: orders === 0 ? 0 : 1000 * (1 + (i % 3)),
      last: orders === 0 ? null : new Date(START + (i % 7) * DAY),
      created: new Date(c.createdOn),
    };
    rows.push(row);
    await ctx.db
      .updateTable('profiles')
      .set({ order_count: row.orders, total_order_minor: row.minor, last_order_on: row.last })
      .where('id', '=', c.id)
      .execute();
  }
});
after(() => ctx.close());

/** Every page of the query, pageSize 3, following the cursors. */
async function allPages(body: object): Promise<string[]> {
  const ids: string[] = [];
  let page = await query(site, { ...body, pageSize: 3 });
  ids.push(...page.contacts.map((c) => c.id));
  while (page.pagination.nextPageCursor) {
    page = await query(site, { cursor: page.pagination.nextPageCursor });
    ids.push(...page.contacts.map((c) => c.id));
  }
  return ids;
}

const byKey = (key: (r: Row) => number, descending: boolean) => (a: Row, b: Row) => {
  const d = key(a) - key(b) || (a.id < b.id ? -1 : 1);
  return descending ? -d : d;
};

describe('a range filter on another field than the sort', () => {
  test('a lastOrderOn window sorted by ORDER_AMOUNT descending: every match once, in order, over pages', async () => {
    const window = {
      after: new Date(START + DAY).toISOString(),
      before: new Date(START + 5 * DAY).toISOString(),
    };
    const expected = rows
      .filter((r) => r.last && r.last.getTime() > START + DAY && r.last.getTime() <= START + 5 * DAY)
      .sort(byKey((r) => r.minor, true))
      .map((r) => r.id);
    assert.ok(expected.length > 6, 'more than two pages');
    const got = await allPages({
      lastOrderOn: window,
      sortField: 'ORDER_AMOUNT',
      sortDirection: 'DESCENDING',
    });
    assert.deepEqual(got, expected);
  });

  test('an orderCount range sorted by LAST_ORDER_ON ascending and by creation: the same contacts', async () => {
    const matching = rows.filter((r) => r.orders >= 2 && r.orders <= 3);
    assert.deepEqual(
      await allPages({ orderCount: { min: 2, max: 3 }, sortField: 'LAST_ORDER_ON' }),
      [...matching].sort(byKey((r) => r.last!.getTime(), false)).map((r) => r.id),
    );
    assert.deepEqual(
      await allPages({ orderCount: { min: 2, max: 3 } }),
      [...matching].sort(byKey((r) => r.created.getTime(), false)).map((r) => r.id),
    );
  });

  test('sorted after filtering or walking the sort index, every page is the same', async () => {
    const cases: [ContactFilter, SortField, boolean][] = [
      [{ lastOrderOn: { after: new Date(START) } }, 'ORDER_AMOUNT', true],
      [{ orderCount: { min: 1 } }, 'CREATED_ON', false],
      [{ orderAmountMinor: { max: 2000 }, lastOrderOn: {} }, 'LAST_NAME', false],
      [{ orderCount: { max: 3 } }, 'LAST_ORDER_ON', true],
    ];
    for (const [filter, sortField, descending] of cases) {
      const read = async (selective: number) => {
        const ids: string[] = [];
        let after: { key: string; id: string } | undefined;
        for (;;) {
          const page = await selectContactPage(
            ctx.db,
            site.websiteId,
            filter,
            { sortField, descending, after, limit: 4 },
            selective,
          );
          ids.push(...page.slice(0, 3).map((r) => r.id));
          if (page.length < 4) return ids;
          after = { key: page[2]!.sort_key, id: page[2]!.id };
        }
      };
      // 0: no range counts as selective, the sort index drives; the default: sorted after filtering.
      const indexDriven = await read(0);
      assert.ok(indexDriven.length > 3, JSON.stringify(filter));
      assert.deepEqual(await read(5_000), indexDriven, `${sortField} ${JSON.stringify(filter)}`);
    }
  });
});
