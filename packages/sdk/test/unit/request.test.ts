import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AbortError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  Emporium,
  EmporiumError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
  type FetchLike,
} from '../../src/index.ts';
import {
  apiErrorBody,
  fakeFetch,
  hang,
  instantSleep,
  json,
  networkError,
  sequence,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';

function client(fetch: FetchLike, extra: Partial<ConstructorParameters<typeof Emporium>[0]> = {}) {
  const { sleep, waits } = instantSleep();
  const emporium = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    apiKey: 'emp_key_test',
    fetch,
    sleep,
    random: () => 1, // the top of each jitter range, so the waits are predictable
    ...extra,
  });
  return { emporium, waits };
}

const products = {
  products: [],
  pagination: { hasNextPage: false, nextPageCursor: null, nextPageUrl: null },
};

describe('the request function', () => {
  test('sends the credential, the User-Agent and JSON, and decodes JSON', async () => {
    const { fetch, calls } = fakeFetch(() => json(201, { id: 'p1' }));
    const { emporium } = client(fetch);
    const created = await emporium.products.create({
      type: 'DIGITAL',
      storePageId: 's1',
      name: 'Pattern',
    } as never);
    assert.deepEqual(created, { id: 'p1' });
    const [request] = calls;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url.toString(), `${BASE}/1.1/commerce/products`);
    assert.equal(request!.headers.get('authorization'), 'Bearer emp_key_test');
    assert.equal(request!.headers.get('user-agent'), 'sdk-tests/1.0');
    assert.equal(request!.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(request!.body as string), {
      type: 'DIGITAL',
      storePageId: 's1',
      name: 'Pattern',
    });
  });

  test('a 204 resolves with nothing', async () => {
    const { fetch } = fakeFetch(() => new Response(null, { status: 204 }));
    assert.equal(await client(fetch).emporium.products.delete('p1'), undefined);
  });

  test('refuses to be built without a User-Agent, a base URL or exactly one credential', () => {
    assert.throws(() => new Emporium({ userAgent: '', baseUrl: BASE, apiKey: 'k' }), /userAgent/);
    assert.throws(() => new Emporium({ userAgent: 'a', baseUrl: '', apiKey: 'k' }), /baseUrl/);
    assert.throws(() => new Emporium({ userAgent: 'a', baseUrl: BASE }), /exactly one/);
    assert.throws(
      () => new Emporium({ userAgent: 'a', baseUrl: BASE, apiKey: 'k', accessToken: 't' }),
      /exactly one/,
    );
  });
});

describe('retries', () => {
  test('a 429 is retried after its Retry-After seconds, even for a POST', async () => {
    const { fetch, calls } = sequence(
      () => json(429, apiErrorBody('TOO_MANY_REQUESTS'), { 'retry-after': '3' }),
      () => json(201, { id: 'p1' }),
    );
    const { emporium, waits } = client(fetch);
    assert.deepEqual(await emporium.products.create({} as never), { id: 'p1' });
    assert.equal(calls.length, 2);
    assert.deepEqual(waits, [3000]);
  });

  test('a 429 asking for longer than maxRetryAfterMs is thrown at once as a RateLimitError', async () => {
    const { fetch, calls } = sequence(() =>
      json(429, apiErrorBody('TOO_MANY_REQUESTS'), { 'retry-after': '120' }),
    );
    const { emporium } = client(fetch);
    const error = await emporium.products.list().then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfterMs, 120_000);
    assert.equal(calls.length, 1);
  });

  test('5xx on a GET: exponential backoff with full jitter, then success', async () => {
    const { fetch, calls } = sequence(
      () => json(503, apiErrorBody('SERVICE_UNAVAILABLE')),
      () => json(500, apiErrorBody('SERVER_ERROR')),
      () => json(200, products),
    );
    const { emporium, waits } = client(fetch, { retryBaseDelayMs: 100 });
    await emporium.products.list();
    assert.equal(calls.length, 3);
    assert.deepEqual(waits, [100, 200], 'random() = 1: the top of [0, base * 2^attempt]');
  });

  test('full jitter: each wait is random() of the exponential cap, the cap bounded by retryMaxDelayMs', async () => {
    const { fetch } = sequence(...Array.from({ length: 5 }, () => () => json(502, 'bad gateway')), () =>
      json(200, products),
    );
    const { emporium, waits } = client(fetch, {
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 500,
      maxRetries: 5,
      random: () => 0.5,
    });
    await emporium.products.list();
    assert.deepEqual(waits, [50, 100, 200, 250, 250]);
  });

  test('a network error on a GET is retried', async () => {
    const { fetch, calls } = sequence(networkError, () => json(200, { id: 'w1' }));
    const { emporium, waits } = client(fetch);
    assert.deepEqual(await emporium.website.get(), { id: 'w1' });
    assert.equal(calls.length, 2);
    assert.equal(waits.length, 1);
  });

  test('a DELETE is retried after a 5xx', async () => {
    const { fetch, calls } = sequence(
      () => json(500, apiErrorBody('SERVER_ERROR')),
      () => new Response(null, { status: 204 }),
    );
    await client(fetch).emporium.products.delete('p1');
    assert.equal(calls.length, 2);
  });

  test('a retried DELETE answered 404 succeeds: the lost first answer may have been its 204', async () => {
    for (const first of [networkError, () => json(503, apiErrorBody('SERVER_ERROR'))]) {
      const { fetch, calls } = sequence(first, () => json(404, apiErrorBody('INVALID_REQUEST_ERROR')));
      assert.equal(await client(fetch).emporium.products.delete('p1'), undefined);
      assert.equal(calls.length, 2);
    }
  });

  test('a 404 is still a NotFoundError for a first DELETE, a DELETE retried after a 429, and a GET', async () => {
    const notFound = () => json(404, apiErrorBody('INVALID_REQUEST_ERROR'));
    await assert.rejects(client(sequence(notFound).fetch).emporium.products.delete('p1'), NotFoundError);
    const afterLimit = sequence(() => json(429, apiErrorBody('TOO_MANY_REQUESTS')), notFound);
    await assert.rejects(client(afterLimit.fetch).emporium.products.delete('p1'), NotFoundError);
    await assert.rejects(
      client(sequence(networkError, notFound).fetch).emporium.website.get(),
      NotFoundError,
    );
  });

  test('local mistakes are thrown at once as TypeErrors, never retried', async () => {
    const { fetch, calls } = sequence(() => json(200, {}));
    const { emporium, waits } = client(fetch);
    // No fetch at all (an old runtime without a polyfill).
    const noFetch = client('not a function' as unknown as FetchLike).emporium;
    await assert.rejects(
      noFetch.website.get(),
      (e: unknown) => e instanceof TypeError && /fetch/.test(e.message),
    );
    // An invalid header value or URL: refused before anything is sent.
    await assert.rejects(
      emporium.call({ method: 'GET', path: '/x', headers: { 'x-note': 'a\nb' } }),
      (e: unknown) => e instanceof TypeError && !(e instanceof EmporiumError),
    );
    await assert.rejects(
      new Emporium({ userAgent: 'x', baseUrl: 'not a url', apiKey: 'k', fetch }).website.get(),
      (e: unknown) => e instanceof TypeError && !(e instanceof EmporiumError),
    );
    assert.equal(calls.length, 0);
    // fetch's own TypeError without a cause (undici's network failures have one): not retried.
    const local = sequence(
      () => new TypeError('RequestInit: duplex option is required'),
      () => json(200, {}),
    );
    await assert.rejects(client(local.fetch).emporium.website.get(), /duplex/);
    assert.equal(local.calls.length, 1);
    assert.deepEqual(waits, []);
  });

  test('a POST without an Idempotency-Key is never retried after a network error or a 5xx', async () => {
    for (const answer of [networkError, () => json(500, apiErrorBody('SERVER_ERROR'))]) {
      const { fetch, calls } = sequence(answer, () => json(201, { id: 'p1' }));
      await assert.rejects(client(fetch).emporium.products.create({} as never), EmporiumError);
      assert.equal(calls.length, 1);
    }
  });

  test('an inventory adjustment is retried, with the same Idempotency-Key each time', async () => {
    const { fetch, calls } = sequence(
      networkError,
      () => json(503, apiErrorBody('SERVICE_UNAVAILABLE')),
      () => new Response(null, { status: 204 }),
    );
    const { idempotencyKey } = await client(fetch).emporium.inventory.adjust({
      incrementOperations: [{ variantId: 'v1', quantity: 1 }],
    });
    assert.match(idempotencyKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(calls.length, 3);
    assert.deepEqual(
      calls.map((c) => c.headers.get('idempotency-key')),
      [idempotencyKey, idempotencyKey, idempotencyKey],
    );
  });

  test('an adjustment uses the key given; a second adjustment gets a new one', async () => {
    const { fetch, calls } = fakeFetch(() => new Response(null, { status: 204 }));
    const { emporium } = client(fetch);
    const body = { setUnlimitedOperations: ['v1'] };
    assert.deepEqual(await emporium.inventory.adjust(body, { idempotencyKey: 'order-42' }), {
      idempotencyKey: 'order-42',
    });
    const second = await emporium.inventory.adjust(body);
    const third = await emporium.inventory.adjust(body);
    assert.equal(calls[0]!.headers.get('idempotency-key'), 'order-42');
    assert.notEqual(second.idempotencyKey, third.idempotencyKey);
  });

  test('409 CONCURRENT_MODIFICATION on a keyed request is retried (the first one is still running)', async () => {
    const { fetch, calls } = sequence(
      () => json(409, apiErrorBody('CONFLICT', 'CONCURRENT_MODIFICATION')),
      () => new Response(null, { status: 204 }),
    );
    await client(fetch).emporium.inventory.adjust({ setUnlimitedOperations: ['v1'] });
    assert.equal(calls.length, 2);
  });

  test('other 409s and 4xx are not retried', async () => {
    const { fetch, calls } = sequence(() => json(409, apiErrorBody('CONFLICT', 'INSUFFICIENT_STOCK')));
    await assert.rejects(
      client(fetch).emporium.inventory.adjust({ decrementOperations: [{ variantId: 'v1', quantity: 9 }] }),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'INSUFFICIENT_STOCK',
    );
    assert.equal(calls.length, 1);
  });

  test("the RFC 7807 answer to a missing Idempotency-Key is a ValidationError with the body's detail", async () => {
    const detail = "Required header 'Idempotency-Key' is not present.";
    const { fetch } = sequence(() =>
      json(400, { type: 'about:blank', title: 'Bad Request', status: 400, detail, instance: '/x' }),
    );
    await assert.rejects(
      client(fetch).emporium.inventory.adjust({ incrementOperations: [] }, { idempotencyKey: '' }),
      (e: unknown) => e instanceof ValidationError && e.message === detail,
    );
  });

  test('gives up after maxRetries and throws the last error', async () => {
    const { fetch, calls } = sequence(() =>
      json(503, apiErrorBody('SERVICE_UNAVAILABLE', null, 'shutting down')),
    );
    const { emporium, waits } = client(fetch, { maxRetries: 2 });
    await assert.rejects(
      emporium.website.get(),
      (e: unknown) => e instanceof ServerError && e.status === 503 && e.message === 'shutting down',
    );
    assert.equal(calls.length, 3, 'the first attempt and 2 retries');
    assert.equal(waits.length, 2);

    const network = sequence(networkError);
    await assert.rejects(client(network.fetch, { maxRetries: 1 }).emporium.website.get(), ConnectionError);
    assert.equal(network.calls.length, 2);
  });

  test('maxRetries 0: one attempt only', async () => {
    const { fetch, calls } = sequence(() =>
      json(429, apiErrorBody('TOO_MANY_REQUESTS'), { 'retry-after': '1' }),
    );
    await assert.rejects(client(fetch, { maxRetries: 0 }).emporium.website.get(), RateLimitError);
    assert.equal(calls.length, 1);
  });
});

describe('timeouts and aborts', () => {
  test('an attempt without an answer within timeoutMs is a TimeoutError, retried for a GET', async () => {
    const { fetch, calls } = fakeFetch((request, index) =>
      index === 0 ? hang(request) : json(200, { id: 'w1' }),
    );
    const { emporium } = client(fetch, { timeoutMs: 20 });
    assert.deepEqual(await emporium.website.get(), { id: 'w1' });
    assert.equal(calls.length, 2);
  });

  test('a timed-out POST is not retried', async () => {
    const { fetch, calls } = fakeFetch(hang);
    const error = await client(fetch, { timeoutMs: 20 })
      .emporium.products.create({} as never)
      .catch((e: unknown) => e);
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.status, 0);
    assert.match(error.message, /no answer within 20 ms/);
    assert.equal(calls.length, 1);
  });

  test('a per-call timeoutMs overrides the client one', async () => {
    const { fetch } = fakeFetch(hang);
    const started = Date.now();
    await assert.rejects(
      client(fetch, { timeoutMs: 60_000, maxRetries: 0 }).emporium.website.get({ timeoutMs: 20 }),
      TimeoutError,
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test("the caller's signal aborts at once and is never retried", async () => {
    const { fetch, calls } = fakeFetch(hang);
    const controller = new AbortController();
    const pending = client(fetch).emporium.website.get({ signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await assert.rejects(pending, AbortError);
    assert.equal(calls.length, 1);
    await assert.rejects(client(fetch).emporium.website.get({ signal: AbortSignal.abort() }), AbortError);
    assert.equal(calls.length, 1, 'an aborted signal sends nothing');
  });
});

describe('errors are typed by status', () => {
  const cases = [
    [400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', ValidationError],
    [401, 'AUTHORIZATION_ERROR', null, AuthenticationError],
    [403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE', PermissionError],
    [404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', NotFoundError],
    [405, 'METHOD_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE', MethodNotAllowedError],
    [409, 'CONFLICT', 'SKU_UNAVAILABLE', ConflictError],
    [413, 'INVALID_REQUEST_ERROR', null, ValidationError],
    [415, 'INVALID_REQUEST_ERROR', 'INVALID_CONTENT_TYPE', ValidationError],
    [429, 'TOO_MANY_REQUESTS', null, RateLimitError],
    [500, 'SERVER_ERROR', null, ServerError],
  ] as const;
  for (const [status, type, subtype, Class] of cases) {
    test(`${status} -> ${Class.name}`, async () => {
      const { fetch } = sequence(() => json(status, apiErrorBody(type, subtype, `message ${status}`)));
      const error = await client(fetch, { maxRetries: 0 })
        .emporium.products.create({} as never)
        .catch((e: unknown) => e);
      assert.ok(error instanceof Class, `${status}: ${String(error)}`);
      assert.ok(error instanceof EmporiumError);
      assert.equal(error.status, status);
      assert.equal(error.type, type);
      assert.equal(error.subtype, subtype);
      assert.equal(error.message, `message ${status}`);
      assert.equal(error.contextId, 'ctx123');
      assert.equal(error.name, Class.name);
    });
  }

  test('a body that is not the API error shape (a proxy page) still gives a typed error', async () => {
    const { fetch } = sequence(
      () =>
        new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    const error = await client(fetch, { maxRetries: 0 })
      .emporium.website.get()
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError);
    assert.equal(error.type, 'SERVER_ERROR');
    assert.match(error.message, /HTTP 502/);
    assert.equal(error.contextId, null);
  });
});
