import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONTACTS, contactBody, createContact, query } from './helpers/contacts.ts';
import { assertError } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** POST /v1/contacts/query (platform-surface 2.6.3): filters, search, every sort, cursors. */

let ctx: TestContext;
let site: Site;
const byName = new Map<string, string>();

interface Person {
  first: string;
  last: string;
  email: string;
  marketing?: string;
  orders?: number;
  minor?: number;
  firstOrder?: string;
  lastOrder?: string;
}

const PEOPLE: Person[] = [
  {
    first: 'Ada',
    last: 'Lovelace',
    email: 'ada@analytical.example',
    marketing: '2026-03-01T00:00:00.000Z',
    orders: 3,
    minor: 15000,
    firstOrder: '2025-01-10T00:00:00.000Z',
    lastOrder: '2026-02-01T00:00:00.000Z',
  },
  {
    first: 'Grace',
    last: 'Hopper',
    email: 'grace@navy.example',
    marketing: '2026-01-15T00:00:00.000Z',
    orders: 1,
    minor: 999,
    firstOrder: '2025-06-01T00:00:00.000Z',
    lastOrder: '2025-06-01T00:00:00.000Z',
  },
  {
    first: 'Alan',
    last: 'Turing',
    email: 'alan@bletchley.example',
    orders: 7,
    minor: 120000,
    firstOrder: '2024-05-05T00:00:00.000Z',
    lastOrder: '2026-04-04T00:00:00.000Z',
  },
  { first: 'Katherine', last: 'Johnson', email: 'kj@nasa.example', marketing: '2025-12-24T00:00:00.000Z' },
  { first: 'Edsger', last: 'Dijkstra', email: 'ewd@eindhoven.example' },
];

before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
  for (const p of PEOPLE) {
    const c = await createContact(site, contactBody({ firstName: p.first, lastName: p.last }, p.email));
    byName.set(p.first, c.id);
    await ctx.db
      .updateTable('profiles')
      .set({
        accepts_marketing: p.marketing !== undefined,
        marketing_joined_on: p.marketing ? new Date(p.marketing) : null,
        order_count: p.orders ?? 0,
        total_order_minor: p.minor ?? 0,
        first_order_on: p.firstOrder ? new Date(p.firstOrder) : null,
        last_order_on: p.lastOrder ? new Date(p.lastOrder) : null,
      })
      .where('id', '=', c.id)
      .execute();
  }
  // Another website's contact is never in this one's answers.
  await createContact(await ctx.site(), contactBody({ firstName: 'Ada' }));
});
after(() => ctx.close());

const names = (page: { contacts: { firstName: string }[] }) => page.contacts.map((c) => c.firstName);
const invalid = (res: Parameters<typeof assertError>[0], message: RegExp) =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', (res.json() as { subtype: string | null }).subtype, message);
const ask = (body: unknown) =>
  site.call({ method: 'POST', url: `${CONTACTS}/query`, payload: body as object });

describe('query', () => {
  test('an empty body (or none) is every contact, oldest first', async () => {
    assert.deepEqual(names(await query(site, {})), ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger']);
    const none = await site.call({ method: 'POST', url: `${CONTACTS}/query` });
    assert.equal(none.statusCode, 200, none.body);
    assert.equal(none.json().contacts.length, 5);
  });

  test('searchString finds words in names and e-mail, whatever their case', async () => {
    assert.deepEqual(names(await query(site, { searchString: 'hopper' })), ['Grace']);
    assert.deepEqual(names(await query(site, { searchString: 'NASA' })), ['Katherine']);
    assert.deepEqual(names(await query(site, { searchString: 'a' })).length, 5);
    assert.deepEqual(names(await query(site, { searchString: 'turing alan' })), ['Alan']);
    assert.deepEqual(names(await query(site, { searchString: '100%_' })), []);
    assert.deepEqual(names(await query(site, { searchString: '   ' })).length, 5, 'blank: no filter');
  });

  test('the filters of 2.6.3, each alone and together', async () => {
    const cases: [object, string[]][] = [
      [{ acceptsMarketingWithDate: { acceptsMarketing: true } }, ['Ada', 'Grace', 'Katherine']],
      [{ acceptsMarketingWithDate: { acceptsMarketing: false } }, ['Alan', 'Edsger']],
      [{ acceptsMarketingWithDate: { joinedOn: { after: '2026-01-01T00:00:00Z' } } }, ['Ada', 'Grace']],
      [
        {
          acceptsMarketingWithDate: { acceptsMarketing: true, joinedOn: { before: '2026-01-15T00:00:00Z' } },
        },
        ['Grace', 'Katherine'],
      ],
      [{ firstOrderOn: { after: '2025-01-01T00:00:00Z', before: '2025-06-01T00:00:00Z' } }, ['Ada', 'Grace']],
      [{ lastOrderOn: { after: '2026-01-01T00:00:00Z' } }, ['Ada', 'Alan']],
      [{ orderCount: { min: 1, max: 3 } }, ['Ada', 'Grace']],
      [{ orderCount: { max: 0 } }, ['Katherine', 'Edsger']],
      [{ orderAmount: { min: 10 } }, ['Ada', 'Alan']],
      [{ orderAmount: { max: 150 } }, ['Ada', 'Grace', 'Katherine', 'Edsger']],
      [
        { orderCount: { min: 1 }, searchString: 'a', acceptsMarketingWithDate: { acceptsMarketing: true } },
        ['Ada', 'Grace'],
      ],
      [{ donationCount: { min: 0, max: 0 } }, ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger']],
      [{ donationCount: { min: 1 } }, []],
      [{ donationAmount: { min: 5 } }, []],
      [{ lastDonationOn: { after: '2020-01-01T00:00:00Z' } }, []],
      [{ firstDonationOn: {} }, ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger']],
    ];
    for (const [body, expected] of cases) {
      assert.deepEqual(names(await query(site, body)), expected, JSON.stringify(body));
    }
  });

  test('every sort field, both directions, ties by id; sortField in any case and camelCase', async () => {
    const sorts: [string, string[]][] = [
      ['CREATED_ON', ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger']],
      ['EMAIL', ['Ada', 'Alan', 'Edsger', 'Grace', 'Katherine']],
      ['FIRST_NAME', ['Ada', 'Alan', 'Edsger', 'Grace', 'Katherine']],
      ['LAST_NAME', ['Edsger', 'Grace', 'Katherine', 'Ada', 'Alan']],
      ['ORDER_AMOUNT', ['Katherine', 'Edsger', 'Grace', 'Ada', 'Alan']],
      ['ORDER_COUNT', ['Katherine', 'Edsger', 'Grace', 'Ada', 'Alan']],
      ['LAST_ORDER_ON', ['Katherine', 'Edsger', 'Grace', 'Ada', 'Alan']],
      ['ACCEPTS_MARKETING_JOINED_ON', ['Alan', 'Edsger', 'Katherine', 'Grace', 'Ada']],
    ];
    const byId = (a: string, b: string) => (byName.get(a)! < byName.get(b)! ? -1 : 1);
    for (const [sortField, expected] of sorts) {
      // Ties (no orders, no marketing) go by id: put the expected tie groups in id order.
      const tied = (list: string[]) => {
        if (sortField.startsWith('ORDER') || sortField === 'LAST_ORDER_ON') {
          return [...list.slice(0, 2).sort(byId), ...list.slice(2)];
        }
        if (sortField === 'ACCEPTS_MARKETING_JOINED_ON')
          return [...list.slice(0, 2).sort(byId), ...list.slice(2)];
        return list;
      };
      const up = tied(expected);
      assert.deepEqual(names(await query(site, { sortField })), up, sortField);
      assert.deepEqual(
        names(await query(site, { sortField, sortDirection: 'DESCENDING' })),
        [...up].reverse(),
        `${sortField} DESCENDING`,
      );
    }
    const camel = names(await query(site, { sortField: 'createdOn', sortDirection: 'descending' }));
    assert.deepEqual(camel, ['Edsger', 'Katherine', 'Alan', 'Grace', 'Ada']);
    assert.deepEqual(
      names(await query(site, { sortField: 'firstName' })),
      names(await query(site, { sortField: 'first_name' })),
    );
    const ids = [...byName.values()].sort();
    for (const sortField of ['ID', 'DONATION_COUNT', 'LAST_DONATION_ON', 'DONATION_AMOUNT']) {
      assert.deepEqual(
        (await query(site, { sortField })).contacts.map((c) => c.id),
        ids,
        sortField,
      );
    }
  });

  test('pages follow the sort and filters through cursors; the cursor may come with the same query', async () => {
    for (const sortField of [
      'LAST_NAME',
      'ORDER_AMOUNT',
      'ACCEPTS_MARKETING_JOINED_ON',
      'CREATED_ON',
      'EMAIL',
    ]) {
      for (const sortDirection of ['ASCENDING', 'DESCENDING']) {
        const body = { sortField, sortDirection, searchString: 'e' };
        const whole = names(await query(site, body));
        const seen: string[] = [];
        let page = await query(site, { ...body, pageSize: 1 });
        seen.push(...names(page));
        let turns = 0;
        while (page.pagination.hasNextPage) {
          assert.ok(++turns < 10);
          assert.equal(
            page.pagination.nextPageUrl,
            `${BASE_URL}${CONTACTS}?cursor=${encodeURIComponent(page.pagination.nextPageCursor!)}`,
          );
          // Alternately the cursor alone, and with the whole query again.
          const next =
            turns % 2
              ? { cursor: page.pagination.nextPageCursor }
              : { ...body, cursor: page.pagination.nextPageCursor };
          page = await query(site, next);
          seen.push(...names(page));
        }
        assert.deepEqual(seen, whole, `${sortField} ${sortDirection}`);
      }
    }
  });

  test("a query's cursor continues on GET /v1/contacts (its nextPageUrl)", async () => {
    const first = await query(site, { orderCount: { min: 1 }, pageSize: 2 });
    assert.deepEqual(names(first), ['Ada', 'Grace']);
    const url = new URL(first.pagination.nextPageUrl!);
    const next = await site.call({ method: 'GET', url: url.pathname + url.search });
    assert.deepEqual(names(next.json()), ['Alan']);
  });

  test('bad bodies are a 400 naming the field', async () => {
    const cursor = (await query(site, { pageSize: 1 })).pagination.nextPageCursor;
    const cases: [unknown, RegExp][] = [
      [{ pageSize: 0 }, /pageSize/],
      [{ pageSize: 1001 }, /pageSize/],
      [{ pageSize: '5' }, /pageSize/],
      [{ sortField: 'AGE' }, /sortField: must be one of ID, CREATED_ON/],
      [{ sortDirection: 'UP' }, /sortDirection/],
      [{ orderCount: { min: 5, max: 1 } }, /orderCount.max/],
      [{ orderCount: { min: 2 ** 31 } }, /orderCount.min/],
      [{ orderAmount: { min: 1.5 } }, /orderAmount.min/],
      [{ firstOrderOn: { after: 'yesterday' } }, /firstOrderOn.after/],
      [
        { lastOrderOn: { after: '2026-02-01T00:00:00Z', before: '2026-01-01T00:00:00Z' } },
        /lastOrderOn.before/,
      ],
      [{ acceptsMarketingWithDate: { acceptsMarketing: 'yes' } }, /acceptsMarketing/],
      [{ searchString: 'x'.repeat(201) }, /searchString/],
      [{ cursor: 'forged' }, /cursor/],
      [{ cursor, sortField: 'EMAIL' }, /cursor/],
      [[], /body/],
    ];
    for (const [body, message] of cases) invalid(await ask(body), message);
  });
});
