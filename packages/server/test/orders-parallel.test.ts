import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { inventoryCalls } from './helpers/inventory.ts';
import { importBody, importOrder, line, ORDERS } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Many imports of one website at once (orders/place-order.ts takes the number last): the numbers
 * stay gapless and follow the commits, which the stamps show, the stock is exact, and a sync
 * reader resuming after the newest modifiedOn it has seen, reading while the imports commit,
 * misses none of them. Placing, canceling and refunding take their locks in one order, so none
 * waits for another in a circle.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const { stocked, stocks } = inventoryCalls(() => {
  throw new Error('a site is always given');
});

interface Listed {
  id: string;
  orderNumber: string;
  modifiedOn: string;
}

const EPOCH = '1970-01-01T00:00:00.000Z';
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

/** Every page of the orders changed after `after`, oldest first. */
async function changedAfter(s: Site, after: string): Promise<Listed[]> {
  const orders: Listed[] = [];
  let query: Record<string, string> = { modifiedAfter: after, modifiedBefore: FAR_FUTURE };
  for (;;) {
    const res = await s.call({ method: 'GET', url: `${ORDERS}?${new URLSearchParams(query)}` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { result: Listed[]; pagination: { nextPageCursor: string | null } };
    orders.push(...body.result);
    if (!body.pagination.nextPageCursor) return orders;
    query = { cursor: body.pagination.nextPageCursor };
  }
}

describe('imports of one website at once', () => {
  test('numbers gapless in the order of the stamps, stock exact, and a sync reader misses none', async () => {
    const s = await ctx.site();
    const products = await Promise.all([0, 1, 2].map(() => stocked([50, 50], s)));
    const ids = products.flatMap((p) => p.ids);

    let importing = true;
    const seen = new Map<string, Listed>();
    const reader = (async () => {
      let newest = EPOCH;
      // Reads while the imports commit, then once more after the last.
      for (let last = false; !last;) {
        last = !importing;
        for (const order of await changedAfter(s, newest)) {
          seen.set(order.id, order);
          if (order.modifiedOn > newest) newest = order.modifiedOn;
        }
      }
    })();

    const taken = new Map<string, number>();
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        // Two lines of different products, some orders sharing them, every fourth not deducting.
        const picked = [ids[i % ids.length]!, ids[(i + 3) % ids.length]!];
        const deduct = i % 4 !== 3;
        if (deduct) for (const id of picked) taken.set(id, (taken.get(id) ?? 0) + 1 + (i % 2));
        return importOrder(
          s,
          importBody(
            picked.map((id) => line(id, 1 + (i % 2))),
            deduct ? { inventoryBehavior: 'DEDUCT' } : {},
          ),
        );
      }),
    ).finally(() => {
      importing = false;
    });
    await reader;

    for (const a of answers) assert.equal(a.statusCode, 201, a.body);
    const placed = answers.map((a) => a.json() as Listed);
    const byNumber = [...placed].sort((a, b) => Number(a.orderNumber) - Number(b.orderNumber));
    assert.deepEqual(
      byNumber.map((o) => Number(o.orderNumber)),
      Array.from({ length: 24 }, (_, i) => i + 1),
      'numbers 1 to 24, none twice',
    );
    const stamps = byNumber.map((o) => o.modifiedOn);
    assert.deepEqual(stamps, [...stamps].sort(), 'a later number has a later modifiedOn');
    assert.equal(new Set(stamps).size, 24, 'each order its own modifiedOn');

    assert.deepEqual([...seen.keys()].sort(), placed.map((o) => o.id).sort(), 'the reader saw every order');
    assert.deepEqual(
      await stocks(ids, s),
      ids.map((id) => 50 - (taken.get(id) ?? 0)),
      'each variant down by what the deducting orders took',
    );
  });

  test('orders of one buyer placed while earlier ones over the same products are canceled with restock: each is done, stock exact', async () => {
    const s = await ctx.site();
    const { ids } = await stocked([100, 100], s);
    const body = () =>
      importBody(
        ids.map((id) => line(id, 1)),
        { inventoryBehavior: 'DEDUCT', customerEmail: 'same.buyer@example.com' },
      );
    const earlier = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await importOrder(s, body());
        assert.equal(res.statusCode, 201, res.body);
        return (res.json() as { id: string }).id;
      }),
    );
    const [placed] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => importOrder(s, body()))),
      ...earlier.map((id) => cancelOrder(ctx.api, s.websiteId, id, { restock: true })),
    ]);
    for (const res of placed) assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(await stocks(ids, s), [92, 92], '16 taken, the first 8 put back');
  });
});
