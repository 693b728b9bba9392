import assert from 'node:assert/strict';
import { request } from './process.ts';

interface Site {
  baseUrl: string;
  apiKey: string;
  storePageId: string;
}

/**
 * A few clients that create and read products without pause until stopped, keeping what a user
 * of the API would notice: the products acknowledged (201), the 503s, and anything else that is
 * not a success (another 5xx, a 503 in another body, a reset connection).
 */
export class Load {
  readonly created: string[] = [];
  unavailable = 0;
  /** When the first and the last 503 were answered. */
  readonly unavailableFrom = { first: 0, last: 0 };
  successes = 0;
  readonly failures: string[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly site: Site,
    clients = 4,
    private readonly maxRequests = 4000,
  ) {
    this.loops = Array.from({ length: clients }, (_, i) => this.loop(i));
  }

  get requests(): number {
    return this.successes + this.unavailable + this.failures.length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(client: number): Promise<void> {
    const auth = { authorization: `Bearer ${this.site.apiKey}`, 'user-agent': 'outage-test' };
    for (let i = 0; this.running && this.requests < this.maxRequests; i++) {
      const create = i % 2 === 0;
      const sku = `OUT-${client}-${i}`;
      try {
        const res = create
          ? await request(this.site.baseUrl, 'POST', '/1.1/commerce/products', auth, {
              type: 'PHYSICAL',
              storePageId: this.site.storePageId,
              name: `Outage ${sku}`,
              variants: [{ sku, pricing: { basePrice: { currency: 'USD', value: '1.00' } } }],
            })
          : await request(this.site.baseUrl, 'GET', '/1.1/commerce/products?query=outage', auth);
        this.record(res, create);
      } catch (error) {
        this.failures.push(`connection: ${(error as Error).message}`);
      }
    }
  }

  private record(res: { status: number; body: string }, create: boolean): void {
    if (res.status === (create ? 201 : 200)) {
      this.successes++;
      if (create) this.created.push(JSON.parse(res.body).id);
      return;
    }
    if (res.status === 503) {
      const body = JSON.parse(res.body);
      const documented =
        Object.keys(body).sort().join() === 'contextId,details,message,subtype,type' &&
        body.type === 'SERVICE_UNAVAILABLE' &&
        body.subtype === null &&
        body.details === null &&
        typeof body.message === 'string' &&
        typeof body.contextId === 'string';
      if (documented) {
        this.unavailable++;
        this.unavailableFrom.first ||= Date.now();
        this.unavailableFrom.last = Date.now();
        return;
      }
    }
    this.failures.push(`${res.status} ${res.body}`);
  }
}

/** Every product in `ids` can be read back from the API. */
export async function assertAllPresent(site: Site, ids: string[]): Promise<void> {
  const auth = { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'outage-test' };
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    const res = await request(site.baseUrl, 'GET', `/1.1/commerce/products/${chunk.join(',')}`, auth);
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(
      JSON.parse(res.body).products.map((p: { id: string }) => p.id),
      chunk,
    );
  }
}
