import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { TOKEN_PATH } from '../src/oauth/token.routes.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { IMAGE_STORAGES, storedImageIds, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Clients that close their connection half-way through a request's body, on a real socket: each
 * kind of body the service reads (JSON, a form, an image upload) on each part of it (the API, the
 * token endpoint, the owner pages, the store).
 */
let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await listening(await testApp());
  site = await ctx.site();
});
after(() => ctx.close());

const CLOSED = 'the client closed the connection before its request arrived';

async function listening(app: TestContext): Promise<TestContext> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

/** Resolves with the next request the service receives, once it reads its body. */
function bodyBeingRead(app: TestContext): Promise<IncomingMessage> {
  return new Promise((resolve) => {
    app.app.server.once('request', (request: IncomingMessage) => {
      // Its hooks may run first (a session to load): the body is read once a listener takes data.
      if (request.listenerCount('data') > 0) return resolve(request);
      request.on('newListener', function watch(event) {
        if (event !== 'data') return;
        request.off('newListener', watch);
        resolve(request);
      });
    });
  });
}

/**
 * Sends the headers and the start of a body 1,000 bytes long, then closes the connection: once the
 * service reads the body, or once `closeWhen` resolves after that. Returns the service's request.
 */
async function abandon(
  path: string,
  contentType: string,
  start: string,
  headers = '',
  { app = ctx, closeWhen }: { app?: TestContext; closeWhen?: Promise<unknown> } = {},
): Promise<IncomingMessage> {
  const { port } = app.app.server.address() as net.AddressInfo;
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const reading = bodyBeingRead(app);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: abort-tests\r\n${headers}` +
      `Content-Type: ${contentType}\r\nContent-Length: 1000\r\n\r\n${start}`,
  );
  const request = await reading;
  await closeWhen;
  socket.end();
  return request;
}

/** Resolves once the service has seen the connection of its request close. */
async function seenClosing(request: IncomingMessage): Promise<void> {
  // Not events.once(): the request fails ('aborted') before it closes.
  if (!request.destroyed) await new Promise((resolve) => request.once('close', resolve));
}

/** The info line of a request to `path` its client closed, written already or still to come. */
function closedLine(app: TestContext, path: string): Promise<string> {
  return app.logged((text) => {
    const entry = JSON.parse(text) as { msg?: string; req?: { url?: string } };
    return entry.msg === CLOSED && entry.req?.url === path;
  });
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
        const line = closedLine(ctx, path);
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

/** The start of a file part: the PNG's signature, then the client goes. */
const UPLOAD_START =
  '--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG';

/**
 * The products table locked until `release`: the upload's product lookup waits behind it, so the
 * client can close while it does. `locked` resolves once the lock is held.
 */
function productsLocked(app: TestContext) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const done = app.db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE products IN ACCESS EXCLUSIVE MODE`.execute(trx);
    locked();
    await released;
  });
  return { locked: held, release, done };
}

/**
 * The app's next storage.put: `called` resolves as the upload reaches it; with `failedFirst`, it
 * only begins once the file's stream has failed (a folder storage makes the image's folder before
 * it listens to the stream); else `reading` resolves once it reads the stream.
 */
function nextPut(app: TestContext, { failedFirst = false } = {}) {
  const storage = app.storage;
  let called!: () => void;
  let reading!: () => void;
  const result = {
    called: new Promise<void>((resolve) => (called = resolve)),
    reading: new Promise<void>((resolve) => (reading = resolve)),
  };
  storage.put = async (imageId: string, name: string, data: Buffer | Readable) => {
    delete (storage as Partial<typeof storage>).put;
    assert.ok(!Buffer.isBuffer(data), 'an upload is stored from its stream');
    called();
    if (failedFirst) {
      // Only 'close': a listener of 'error' here would hide a failure nobody listens to.
      if (!data.destroyed) await new Promise((resolve) => data.once('close', resolve));
    } else {
      data.on('newListener', (event) => {
        if (event === 'data' || event === 'readable') reading();
      });
    }
    return storage.put(imageId, name, data);
  };
  return result;
}

/** The half-written files (storage.ts's `.partial`) this process holds open; none where /proc is not. */
function openPartials(): string[] {
  if (!fs.existsSync('/proc/self/fd')) return [];
  return fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile (the one readdirSync used)
      }
    })
    .filter((target) => target.endsWith('.partial'));
}

for (const storageKind of IMAGE_STORAGES) {
  describe(`a client that closes its connection mid-upload, ${storageKind} storage`, () => {
    let app: TestContext;
    let owner: Site;
    before(async () => {
      app = await listening(await testApp({ storage: storageKind }));
      owner = await app.site();
    });
    after(() => app.close());

    /** Abandons an upload to a product of its own at the moment `closeAt` sets up, then checks. */
    async function upload(closeAt: (path: string) => Promise<unknown>) {
      const product = (await createProduct(owner, physical(owner))) as { id: string };
      const path = `/1.1/commerce/products/${product.id}/images`;
      // Compared with what was there before, so that a case that failed leaves its own trace only.
      const [stored, open] = [await storedImageIds(app.storage), openPartials()];
      const logged = closedLine(app, path);
      await closeAt(path);
      const line = await logged;
      const entry = JSON.parse(line) as { level: number; contextId: string };
      assert.equal(entry.level, 30);
      const rows = await app.db
        .selectFrom('images')
        .select('id')
        .where('product_id', '=', product.id)
        .execute();
      assert.deepEqual(rows, [], 'no image row');
      assert.deepEqual(await storedImageIds(app.storage), stored, 'no file stored, not even half of one');
      assert.deepEqual(openPartials(), open, 'no file left open');
      const ofRequest = app.logs
        .map((text) => JSON.parse(text) as { contextId?: string })
        .filter((e) => e.contextId === entry.contextId);
      assert.deepEqual(ofRequest, [entry], 'the one line of the request');
    }
    const send = (path: string, closeWhen?: Promise<unknown>) => {
      const bearer = `Authorization: Bearer ${owner.apiKey}\r\n`;
      return abandon(path, 'multipart/form-data; boundary=b', UPLOAD_START, bearer, { app, closeWhen });
    };

    test('while the product is looked up, before the file is read', { timeout: 30_000 }, async () => {
      await upload(async (path) => {
        const lock = productsLocked(app);
        await lock.locked;
        try {
          await seenClosing(await send(path));
        } finally {
          lock.release();
          await lock.done;
        }
      });
    });

    test(
      'once the file is handed to storage, before storage listens to it',
      { timeout: 30_000 },
      async () => {
        await upload(async (path) => {
          const put = nextPut(app, { failedFirst: true });
          return send(path, put.called);
        });
      },
    );

    test('while storage reads the file', { timeout: 30_000 }, async () => {
      await upload(async (path) => {
        const put = nextPut(app);
        return send(path, put.reading);
      });
    });

    test('nothing is logged at warn or error level', () => {
      const faults = app.logs
        .map((text) => JSON.parse(text) as { level: number })
        .filter((e) => e.level >= 40);
      assert.deepEqual(faults, []);
    });
  });
}
