import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConflictError, NotFoundError, ValidationError, type Discount } from '../../src/index.ts';
import { startServer, type Server } from './server.ts';

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('discounts: create, list with for await over offset pages, get, replace, delete', async () => {
  const { discounts } = server.client;
  const made: Discount[] = [];
  for (let i = 0; i < 5; i++) {
    made.push(
      await discounts.create({
        name: `Code ${i}`,
        criteria: { type: 'ANY_ORDER' },
        template: { type: 'PERCENTAGE', percentage: 5 + i },
        trigger: { type: 'CODE', promoCode: `CODE${i}` },
        validFrom: '2025-12-01T00:00:00Z',
      }),
    );
  }
  const listed: Discount[] = [];
  for await (const d of discounts.list({ limit: 2, sortDirection: 'ASCENDING' })) listed.push(d);
  assert.deepEqual(listed, made, 'every page, in order, each once');
  assert.deepEqual(await discounts.get(made[0]!.id), made[0]);

  const { id, numberOfUses, status, ...rest } = made[0]!;
  const replaced = await discounts.replace(id, {
    ...made[0]!,
    name: 'Renamed',
    template: { type: 'PERCENTAGE', percentage: 20 },
  });
  assert.deepEqual(replaced, {
    ...made[0]!,
    name: 'Renamed',
    template: { type: 'PERCENTAGE', percentage: 20 },
  });
  assert.deepEqual([numberOfUses, status], [0, 'ACTIVE']);

  await assert.rejects(
    discounts.create({ ...rest, name: 'Again', trigger: { type: 'CODE', promoCode: 'code0' } }),
    ConflictError,
  );
  await assert.rejects(
    discounts.create({ ...rest, criteria: { type: 'PRODUCT', productId: 'ffffffffffffffffffffffff' } }),
    ValidationError,
  );
  await discounts.delete(id);
  await assert.rejects(discounts.get(id), NotFoundError);
});

test('fulfillment options: the standard shipping a FREE_SHIPPING discount may name', async () => {
  const [option] = await server.client.fulfillments.fulfillmentOptions.list();
  assert.equal(option!.name, 'Standard Shipping');
  const free = await server.client.discounts.create({
    name: 'Free shipping',
    criteria: { type: 'ANY_ORDER' },
    template: {
      type: 'FREE_SHIPPING',
      selectedShippingOption: { shippingOptionId: option!.id, shippingOptionName: option!.name },
    },
    trigger: { type: 'AUTO' },
    validFrom: '2025-12-01T00:00:00Z',
  });
  assert.equal(free.template.type, 'FREE_SHIPPING');
});
