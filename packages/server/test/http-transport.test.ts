import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createProduct, physical } from './helpers/factories.ts';
import {
  storedImageIds,
  testApp,
  type ImageStorageKind,
  type Site,
  type TestContext,
} from './helpers/test-app.ts';

/**
 * What only a real socket shows: requests the HTTP parser refuses, bodies the server must stop
 * reading, and clients too slow to finish a request. The apps listen on 127.0.0.1; the one for
 * slow clients has a request time limit of 2 s, so their fate is decided in seconds.
 */
let ctx: TestContext;
let site: Site;
let port: number;
let uploadPath: string;
before(async () => {
  ({ ctx, site, port } = await listening());
  uploadPath = `/1.1/commerce/products/${(await createProduct(site, physical(site))).id}/images`;
});
after(() => ctx.close());

async function listening(requestTimeoutSeconds?: number, storage?: ImageStorageKind) {
  const app = await testApp({ requestTimeoutSeconds, storage });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return { ctx: app, site: await app.site(), port: (app.app.server.address() as net.AddressInfo).port };
}

interface Exchange {
  socket: net.Socket;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<string>;
}

function connect(to = port): Exchange {
  const socket = net.connect(to, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {}); // a reset while we still write is one way of being cut off
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return { socket, closed };
}

/** The status line and the JSON body of one response. */
function parse(response: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

/** Sent in requests below, so that an answer repeating the request is caught. */
const MARKER = 'raw-input-7d3f9b';

function assertDocumented(response: string, status: number | number[], message: RegExp) {
  const parsed = parse(response);
  assert.ok([status].flat().includes(parsed.status), response);
  assert.ok(!response.includes(MARKER), `the answer repeats the request: ${response}`);
  assert.deepEqual(Object.keys(parsed.body).sort(), ['contextId', 'details', 'message', 'subtype', 'type']);
  assert.equal(parsed.body.type, 'INVALID_REQUEST_ERROR');
  assert.equal(parsed.body.details, null);
  assert.match(String(parsed.body.message), message);
  return parsed;
}

const auth = (key = site.apiKey) => `Authorization: Bearer ${key}\r\nUser-Agent: transport-tests\r\n`;

describe('requests the HTTP parser refuses', () => {
  test('oversized headers: 431 in the documented body, connection closed', async () => {
    const { socket, closed } = connect();
    socket.write(
      `GET /1.1/commerce/products HTTP/1.1\r\nHost: x\r\nX-Big: ${MARKER}${'h'.repeat(32 * 1024)}\r\n\r\n`,
    );
    assertDocumented(await closed, 431, /^headers: larger than this server accepts$/);
  });

  test('a request line longer than the header limit: 414 or 431 in the documented body', async () => {
    const { socket, closed } = connect();
    socket.write(
      `GET /1.1/commerce/products?query=${MARKER}${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`,
    );
    assertDocumented(await closed, [414, 431], /./);
  });

  test('a header line without a colon: 400 in the documented body', async () => {
    const { socket, closed } = connect();
    socket.write(`GET /1.1/commerce/products HTTP/1.1\r\nHost: x\r\n${auth()}${MARKER} no colon\r\n\r\n`);
    assertDocumented(await closed, 400, /^the request is not valid HTTP\/1\.1$/);
  });

  test('Content-Length together with Transfer-Encoding: 400 in the documented body', async () => {
    const { socket, closed } = connect();
    socket.write(
      `POST /1.1/commerce/products HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\n` +
        'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    assertDocumented(
      await closed,
      400,
      /^Transfer-Encoding: must end in chunked, and never come with Content-Length$/,
    );
  });

  test('a bad percent-encoding: 400 in the documented body, without the path in it', async () => {
    for (const path of [
      `/1.1/commerce/products/%zz${MARKER}`,
      `/1.1/commerce/products/${MARKER}%E2%82`,
      `/images/%${MARKER}`,
    ]) {
      const { socket, closed } = connect();
      socket.end(`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`);
      assertDocumented(await closed, 400, /^path: not a valid URL/);
    }
  });

  test('an error answered after the whole request keeps the connection open for the next one', async () => {
    const { socket, closed } = connect();
    socket.write(`GET /no/such/path HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`);
    await once(socket, 'data');
    socket.end(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const response = await closed;
    assert.match(response, /^HTTP\/1\.1 404 /);
    assert.match(response, /HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
  });
});

describe('bodies the server stops reading', () => {
  const uploadHead = (length: string) =>
    `POST ${uploadPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: multipart/form-data; boundary=XX\r\n${length}\r\n`;
  const partHead = '--XX\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n\r\n';

  test('an upload declared over the limit: 413 at once, and the connection closes without the body', async () => {
    const { socket, closed } = connect();
    socket.write(`${uploadHead(`Content-Length: ${1024 ** 3}\r\n`)}${partHead}`);
    const response = await closed; // no more of the 1 GB is ever sent
    const parsed = assertDocumented(response, 413, /^file: larger than 20 MB$/);
    assert.match(parsed.headers, /connection: close/);
  });

  test('a credential-less request with a large body: 401, and the connection closes without the body', async () => {
    const { socket, closed } = connect();
    socket.write(
      `POST /1.1/commerce/products HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\nContent-Length: ${1024 ** 3}\r\n\r\n{`,
    );
    const response = await closed;
    assert.match(response, /^HTTP\/1\.1 401 /);
    assert.match(response, /connection: close/i);
  });

  test('a streamed upload is cut off soon after it passes the limit: 413, connection closed', async () => {
    const { response, sent } = await streamPastLimit(port, uploadPath);
    assertDocumented(response, 413, /larger than 20 MB/);
    assert.ok(sent < 100, `the server read ${sent} MB before closing`);
  });

  test('on S3 storage too, once parts of it are stored: 413, and no object is left', async () => {
    const s3App = await listening(undefined, 's3');
    try {
      const path = `/1.1/commerce/products/${(await createProduct(s3App.site, physical(s3App.site))).id}/images`;
      const { response } = await streamPastLimit(s3App.port, path, s3App.site.apiKey);
      assertDocumented(response, 413, /larger than 20 MB/);
      assert.deepEqual(await storedImageIds(s3App.ctx.storage), []);
    } finally {
      await s3App.ctx.close();
    }
  });
});

/** Streams an upload in 1 MB chunks until the server closes the connection (200 MB at most). */
async function streamPastLimit(to: number, path: string, apiKey = site.apiKey) {
  const { socket, closed } = connect(to);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth(apiKey)}Content-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  const chunk = (data: Buffer | string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
  socket.write(chunk('--XX\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n\r\n'));
  const megabyte = 'x'.repeat(1024 * 1024);
  let sent = 0;
  let open = true;
  socket.on('close', () => (open = false));
  // At most 200 MB: the server must close long before that.
  while (open && sent < 200) {
    if (!socket.write(chunk(megabyte))) {
      // A write after the server closed errors (EPIPE): that, too, is the end of the loop.
      await Promise.race([once(socket, 'drain'), closed]).catch(() => {});
    }
    sent++;
  }
  return { response: await closed, sent };
}

describe('slow clients', () => {
  let slowApp: Awaited<ReturnType<typeof listening>>;
  before(async () => (slowApp = await listening(2)));
  after(() => slowApp.ctx.close());

  test('a body sent too slowly gets a 408 in the documented body and is disconnected', async () => {
    const { socket, closed } = connect(slowApp.port);
    socket.write(
      `POST /1.1/commerce/products HTTP/1.1\r\nHost: x\r\n${auth(slowApp.site.apiKey)}Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"na`,
    );
    assertDocumented(await closed, 408, /^the request did not arrive in time/);
  });

  test('a thousand slow clients do not hold up others, and each is cut off in time', async () => {
    const slow = Array.from({ length: 1000 }, (_, i) => {
      const exchange = connect(slowApp.port);
      // Half stall in their headers, half in their bodies.
      exchange.socket.write(
        i % 2
          ? `GET /1.1/commerce/products HTTP/1.1\r\nHost: x\r\nUser-Ag`
          : `POST /1.1/commerce/products HTTP/1.1\r\nHost: x\r\n${auth(slowApp.site.apiKey)}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      );
      return exchange.closed;
    });
    const res = await fetch(`http://127.0.0.1:${slowApp.port}/1.1/commerce/products`, {
      headers: { authorization: `Bearer ${slowApp.site.apiKey}`, 'user-agent': 'transport-tests' },
    });
    assert.equal(res.status, 200);
    const responses = await Promise.all(slow);
    assert.equal(responses.filter((r) => parse(r).status === 408).length, 1000);
  });
});
