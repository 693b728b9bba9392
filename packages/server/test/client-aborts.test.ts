import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { TOKEN_PATH } from '../src/oauth/token.routes.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Clients that close their connection half-way through a request's body, on a real socket: each
 * kind of body the service reads (JSON, a form) on each part of it (the API, the token endpoint,
 * the owner pages, the store).
 */
let ctx: TestContext;
let site: Site;
let port: number;
before(async () => {
  ctx = await testApp();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as net.AddressInfo).port;
  site = await ctx.site();
});
after(() => ctx.close());

const CLOSED = 'the client closed the connection before its request arrived';

/** Resolves once the service reads the body of the next request it receives. */
function bodyBeingRead(): Promise<void> {
  return new Promise((resolve) => {
    ctx.app.server.once('request', (request: IncomingMessage) => {
      // Its hooks may run first (a session to load): the body is read once a listener takes data.
      if (request.listenerCount('data') > 0) return resolve();
      request.on('newListener', function watch(event) {
        if (event !== 'data') return;
        request.off('newListener', watch);
        resolve();
      });
    });
  });
}

/** Sends the headers and the start of a body 1,000 bytes long, then closes the connection. */
async function abandon(path: string, contentType: string, start: string, headers = ''): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const reading = bodyBeingRead();
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: abort-tests\r\n${headers}` +
      `Content-Type: ${contentType}\r\nContent-Length: 1000\r\n\r\n${start}`,
  );
  await reading;
  socket.end();
}

describe('a client that closes its connection mid-request', () => {
  test(
    'is logged once at info with the request, never as an error of the service',
    { timeout: 30_000 },
    async () => {
      const bearer = `Authorization: Bearer ${site.apiKey}\r\n`;
      const cases: [string, string, string, string?][] = [
        ['/1.1/commerce/products', 'application/json', '{"name":', bearer],
        [TOKEN_PATH, 'application/x-www-form-urlencoded', 'grant_type=authorization_code&code='],
        ['/login', 'application/x-www-form-urlencoded', 'email=a%40b.co&password='],
        [`/s/${site.websiteId}/cart`, 'application/x-www-form-urlencoded', 'variantId='],
      ];
      for (const [path, type, start, headers] of cases) {
        const line = ctx.logged((text) => {
          const entry = JSON.parse(text) as { msg?: string; req?: { url?: string } };
          return entry.msg === CLOSED && entry.req?.url === path;
        });
        await abandon(path, type, start, headers);
        const entry = JSON.parse(await line) as Record<string, unknown>;
        assert.equal(entry.level, 30, path);
        assert.equal(typeof entry.contextId, 'string');
        assert.equal((entry.req as { method: string }).method, 'POST');
      }
      const faults = ctx.logs
        .map((text) => JSON.parse(text) as { level: number })
        .filter((e) => e.level >= 40);
      assert.deepEqual(faults, [], 'nothing at warn or error level');
    },
  );
});
