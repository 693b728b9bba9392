/**
 * The real application in-process (the server's test helpers, on a database of the test run:
 * packages/server/test/run.ts), listening on 127.0.0.1 so the SDK talks to it over HTTP.
 */
import type { AddressInfo } from 'node:net';
import {
  testApp,
  type Site,
  type TestAppOptions,
  type TestContext,
} from '../../../server/test/helpers/test-app.ts';
import { Emporium } from '../../src/index.ts';

export const USER_AGENT = 'emporium-sdk-e2e/1.0';

export interface Server {
  ctx: TestContext;
  /** http://127.0.0.1:<port>: both the API and the token endpoint. */
  url: string;
  site: Site;
  /** An SDK client with the site's all-scope API key. */
  client: Emporium;
  close(): Promise<void>;
}

export async function startServer(options: TestAppOptions = {}): Promise<Server> {
  const ctx = await testApp({ logLevel: 'silent', ...options });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  const site = await ctx.site();
  const client = new Emporium({ userAgent: USER_AGENT, baseUrl: url, apiKey: site.apiKey });
  return { ctx, url, site, client, close: () => ctx.close() };
}

export const money = (value: string) => ({ currency: 'USD', value });

/** Runs `make(i)` for i < count, `concurrency` at a time, results in order. */
export async function times<T>(
  count: number,
  make: (i: number) => Promise<T>,
  concurrency = 4,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await make(i);
      }
    }),
  );
  return results;
}
