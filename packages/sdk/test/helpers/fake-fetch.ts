import type { FetchLike } from '../../src/index.ts';

export interface SeenRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: string | FormData | undefined;
  signal: AbortSignal | undefined;
}

export type Answer = Response | Error | Promise<Response | Error>;

/** A fetch that records each request and answers with `handler` (an Error is thrown, as fetch does). */
export function fakeFetch(handler: (request: SeenRequest, index: number) => Answer) {
  const calls: SeenRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const request: SeenRequest = {
      url: new URL(input),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body as string | FormData | undefined,
      signal: init.signal ?? undefined,
    };
    calls.push(request);
    const answer = await handler(request, calls.length - 1);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, calls };
}

/** Answers from a list, one a request; the last is repeated. */
export function sequence(...answers: (() => Answer)[]) {
  return fakeFetch((_request, index) => answers[Math.min(index, answers.length - 1)]!());
}

export const json = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

export const apiErrorBody = (type: string, subtype: string | null = null, message = 'refused') => ({
  type,
  subtype,
  message,
  details: null,
  contextId: 'ctx123',
});

/** A fetch failure as undici reports it. */
export const networkError = () => new TypeError('fetch failed', { cause: new Error('ECONNRESET') });

/** A sleep that records the waits and returns at once. */
export function instantSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  return { sleep, waits };
}

/** A fetch that never answers until its signal fires. */
export const hang = (request: SeenRequest) =>
  new Promise<Response>((_resolve, reject) => {
    request.signal?.addEventListener('abort', () => reject(request.signal!.reason));
  });
