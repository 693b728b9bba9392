import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createProduct, money, physical, variant } from './factories.ts';
import type { Site, TestContext } from './test-app.ts';

/**
 * A shopper's browser for inject() tests of the store: it keeps the cookies the store sets, as
 * a browser does, and sends the store's CSRF token with every form, as the store's forms do.
 */
export class Shopper {
  readonly cookies = new Map<string, string>();
  /** The store's CSRF token: what a store page puts in every form. */
  readonly csrf = randomBytes(32).toString('base64url');

  constructor(
    private readonly ctx: TestContext,
    readonly websiteId: string,
  ) {
    this.cookies.set('emporium_store', this.csrf);
  }

  get root(): string {
    return `/s/${this.websiteId}`;
  }

  private header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]) {
      if (c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  async get(path: string): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.ctx.app.inject({ method: 'GET', url: path, headers: { cookie: this.header() } }),
    );
  }

  /** A form post with this browser's CSRF token unless the fields say another. */
  async post(path: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.ctx.app.inject({
        method: 'POST',
        url: path,
        headers: { cookie: this.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: this.csrf, ...fields }).toString(),
      }),
    );
  }

  async add(variantId: string, quantity = 1): Promise<LightMyRequestResponse> {
    return this.post(`${this.root}/cart`, { variantId, quantity: String(quantity) });
  }

  async checkout(fields: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    // A new form's key each time unless the test sends one form twice.
    return this.post(`${this.root}/checkout`, { attempt: randomUUID(), ...GOOD_CHECKOUT, ...fields });
  }
}

export const GOOD_CHECKOUT: Record<string, string> = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '12 Analytical Way',
  address2: '',
  city: 'Portland',
  state: 'OR',
  postalCode: '97205',
  countryCode: 'US',
  phone: '',
  cardNumber: '4242 4242 4242 4242',
  cardExpiry: '12/30',
  cardCvc: '123',
};

/** The 303 of a form that worked, and where it leads. */
export function seeOther(res: LightMyRequestResponse): string {
  assert.equal(res.statusCode, 303, res.body);
  return res.headers.location as string;
}

/** A page's text without tags or extra spaces, for asserting what a shopper reads. */
export function text(res: LightMyRequestResponse): string {
  return res.body
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

/** A shirt with sizes S (stock `stock`) and M (stock 10), 20.00 on sale at 15.00. */
export async function shirt(site: Site, stock = 3, overrides: Record<string, unknown> = {}) {
  const usd = (value: string) => money(value, 'USD');
  const sku = () => `SHIRT-${randomBytes(4).toString('hex')}`;
  const product = await createProduct(
    site,
    physical(site, {
      name: 'Linen shirt',
      isVisible: true,
      variantAttributes: ['Size'],
      variants: [
        variant(sku(), {
          attributes: { Size: 'S' },
          pricing: { basePrice: usd('20.00'), salePrice: usd('15.00'), onSale: true },
          stock: { quantity: stock, unlimited: false },
        }),
        variant(sku(), {
          attributes: { Size: 'M' },
          pricing: { basePrice: usd('20.00') },
          stock: { quantity: 10, unlimited: false },
        }),
      ],
      ...overrides,
    }),
  );
  const [small, medium] = product.variants.map((v: { id: string }) => v.id) as string[];
  return { product, small: small!, medium: medium! };
}

/** The orders of a website, straight from the database. */
export function ordersOf(ctx: TestContext, websiteId: string) {
  return ctx.db.selectFrom('orders').selectAll().where('website_id', '=', websiteId).execute();
}

/** A variant's stock as the API shows it. */
export async function stockOf(site: Site, variantId: string): Promise<number> {
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/inventory/${variantId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().inventory[0].quantity;
}
