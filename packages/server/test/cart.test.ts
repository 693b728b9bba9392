import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The storefront's cart: a cookie of lines, shown with the catalog's names and prices. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

describe('the cart', () => {
  test('adding, changing and removing lines, with names, prices and totals from the catalog', async () => {
    const site = await ctx.site();
    const { small, medium } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);

    const added = await shopper.add(small, 2);
    assert.equal(seeOther(added), `${shopper.root}/cart`);
    const cookie = String(added.headers['set-cookie']);
    assert.match(
      cookie,
      /^emporium_cart=[^;]+; Max-Age=2592000; Path=\/s\/[0-9a-f]{24}; HttpOnly; Secure; SameSite=Lax$/,
    );
    seeOther(await shopper.add(medium, 1));
    seeOther(await shopper.add(small, 1));
    let page = await shopper.get(`${shopper.root}/cart`);
    assert.equal(page.statusCode, 200);
    let shown = text(page);
    assert.match(shown, /Linen shirt Size: S Sale price \$15\.00 was \$20\.00 .*\$45\.00/, shown);
    assert.match(shown, /Linen shirt Size: M \$20\.00 .*\$20\.00/);
    assert.match(shown, /Subtotal \$65\.00/);
    assert.match(page.body, new RegExp(`name="quantity\\.${small}"\\s+value="3"`), 'the quantity, to change');
    assert.match(
      page.body,
      /<a href="\/s\/[0-9a-f]{24}\/[^"]+\/p\/[^"]+">Linen shirt<\/a>/,
      'back to the product',
    );

    // Update: S to 1, M to 0 (removed); then Remove takes S out.
    seeOther(
      await shopper.post(`${shopper.root}/cart/lines`, {
        action: 'update',
        [`quantity.${small}`]: '1',
        [`quantity.${medium}`]: '0',
      }),
    );
    shown = text(await shopper.get(`${shopper.root}/cart`));
    assert.match(shown, /Subtotal \$15\.00/);
    assert.doesNotMatch(shown, /Size: M/);
    seeOther(await shopper.post(`${shopper.root}/cart/lines`, { remove: small }));
    page = await shopper.get(`${shopper.root}/cart`);
    assert.match(text(page), /Your cart is empty\./);
    assert.ok(!shopper.cookies.has('emporium_cart'), 'the empty cart leaves no cookie');
  });

  test("a bad quantity, a sold-out or hidden item and another store's item are refused, the cart unchanged", async () => {
    const site = await ctx.site();
    const { small, medium } = await shirt(site, 2);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(medium, 1));
    const before = shopper.cookies.get('emporium_cart');

    for (const quantity of ['0', '100', 'two', '-1']) {
      const res = await shopper.post(`${shopper.root}/cart`, { variantId: small, quantity });
      assert.equal(res.statusCode, 400, quantity);
      assert.match(text(res), /Choose a quantity from 1 to 99\./);
    }
    const tooMany = await shopper.add(small, 3);
    assert.equal(tooMany.statusCode, 400);
    assert.match(text(tooMany), /Sorry, only 2 of Linen shirt \(S\) left/);
    const bad = await shopper.post(`${shopper.root}/cart/lines`, { [`quantity.${medium}`]: '1000' });
    assert.equal(bad.statusCode, 400);

    const hidden = await shirt(site, 5, { isVisible: false });
    assert.equal((await shopper.add(hidden.small)).statusCode, 404);
    const other = await ctx.site();
    const elsewhere = await shirt(other, 5);
    assert.equal((await shopper.add(elsewhere.small)).statusCode, 404, "another store's item");
    assert.equal((await shopper.add('not-a-variant')).statusCode, 404);

    assert.equal(shopper.cookies.get('emporium_cart'), before, 'the cart is as it was');
    assert.match(text(await shopper.get(`${shopper.root}/cart`)), /Size: M .*Subtotal \$20\.00/);
  });

  test('an item hidden after it was added leaves the cart with a note, on the cart and the checkout', async () => {
    const site = await ctx.site();
    const { product, small } = await shirt(site, 5);
    const kept = await shirt(site, 5, { name: 'Wool scarf' });
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    seeOther(await shopper.add(kept.small, 1));
    const hide = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${product.id}`,
      payload: { isVisible: false },
    });
    assert.equal(hide.statusCode, 200, hide.body);
    const checkout = await shopper.get(`${shopper.root}/checkout`);
    assert.equal(checkout.statusCode, 200);
    assert.match(text(checkout), /Linen shirt \(S\) can no longer be bought here and left your cart\./);
    const page = text(await shopper.get(`${shopper.root}/cart`));
    assert.doesNotMatch(page, /Linen shirt/, 'the cookie was written without it');
    assert.match(page, /Wool scarf .*Subtotal \$15\.00/);
  });

  test('a tampered, malformed or foreign cart cookie is an empty cart, never an error', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 2));
    const real = shopper.cookies.get('emporium_cart')!;
    const other = await ctx.site();
    for (const forged of [
      real.replace('*2', '*9'),
      `${small}*1~${'A'.repeat(43)}`,
      'garbage',
      '%E0%A4%A',
      'x'.repeat(3000),
    ]) {
      shopper.cookies.set('emporium_cart', forged);
      const page = await shopper.get(`${shopper.root}/cart`);
      assert.equal(page.statusCode, 200, forged);
      assert.match(text(page), /Your cart is empty\./, forged);
    }
    // A real cart of one store presented to another store.
    const foreign = new Shopper(ctx, other.websiteId);
    foreign.cookies.set('emporium_cart', real);
    assert.match(text(await foreign.get(`${foreign.root}/cart`)), /Your cart is empty\./);
  });

  test('every cart form needs the CSRF token of this browser; without it nothing changes', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 5);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    const cart = shopper.cookies.get('emporium_cart');
    for (const csrf of ['', 'A'.repeat(43)]) {
      const add = await shopper.post(`${shopper.root}/cart`, { csrf, variantId: small, quantity: '1' });
      assert.equal(add.statusCode, 403);
      assert.match(text(add), /This form has expired/);
      assert.equal(
        (await shopper.post(`${shopper.root}/cart/lines`, { csrf, remove: small })).statusCode,
        403,
      );
    }
    assert.equal(shopper.cookies.get('emporium_cart'), cart);
    const page = await shopper.get(`${shopper.root}/cart`);
    assert.match(page.body, new RegExp(`name="csrf" value="${shopper.csrf}"`), 'the forms carry the token');
    assert.match(page.headers['content-security-policy'] as string, /script-src 'none'/);
  });

  test('a store that does not exist has no cart', async () => {
    const shopper = new Shopper(ctx, 'f'.repeat(24));
    assert.equal((await shopper.get(`${shopper.root}/cart`)).statusCode, 404);
    assert.equal((await shopper.get('/s/not-a-store/cart')).statusCode, 404);
  });
});
