import { segment, type Caller } from '../client.js';
import { AbortError, EmporiumError, TimeoutError } from '../errors.js';
import { abortError, type CallOptions } from '../request.js';
import type { ProductApi11, ProductApiTypes } from '../types.js';

/**
 * What `upload` takes: a Blob or File, bytes, or in Node a file path or a readable stream (any
 * async iterable of bytes, or a web ReadableStream). Paths and streams are read by duck typing,
 * so this module imports nothing of Node's.
 */
export type UploadSource =
  Blob | Uint8Array | ArrayBuffer | string | AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

export interface UploadOptions extends CallOptions {
  /** The part's file name; the image's first `altText` is it without extension. */
  filename?: string;
  /** The part's Content-Type; the server decides the format from the bytes anyway. */
  contentType?: string;
}

export interface WaitOptions {
  /** Give up after this long (TimeoutError). Default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** First wait between polls, doubling up to `maxIntervalMs`. Defaults 250 ms and 5 s. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

/** The image ended in ERROR: undecodable, or failed after retries. */
export class ImageProcessingError extends EmporiumError {
  constructor(readonly imageId: string) {
    super({
      status: 0,
      type: 'IMAGE_PROCESSING_ERROR',
      message: `image ${imageId}: processing failed (ERROR)`,
    });
  }
}

const basename = (path: string) => path.split(/[\\/]/).pop() || 'image';

/** A variable, so that bundlers leave Node's module alone: it is loaded only for a path, in Node. */
const NODE_FS = 'node:fs/promises';

async function readPath(path: string): Promise<Uint8Array> {
  const isNode =
    typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ===
    'string';
  if (!isNode) throw new TypeError('upload: a file path needs Node; pass a Blob, a File or bytes');
  const fs = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS)) as {
    readFile(path: string): Promise<Uint8Array>;
  };
  return fs.readFile(path);
}

async function collect(
  stream: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>,
): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const push = (chunk: Uint8Array | string) =>
    chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  if (Symbol.asyncIterator in stream) {
    for await (const chunk of stream as AsyncIterable<Uint8Array | string>) push(chunk);
  } else {
    const reader = (stream as ReadableStream<Uint8Array>).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) push(r.value);
  }
  return chunks;
}

/** The source as a Blob and a file name. */
export async function uploadBlob(
  source: UploadSource,
  options: UploadOptions = {},
): Promise<{ blob: Blob; filename: string }> {
  const type = options.contentType;
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    const named = (source as Blob & { name?: unknown }).name;
    const filename = options.filename ?? (typeof named === 'string' && named ? named : 'image');
    return { blob: type && type !== source.type ? new Blob([source], { type }) : source, filename };
  }
  let parts: Uint8Array[];
  let filename = options.filename;
  if (typeof source === 'string') {
    parts = [await readPath(source)];
    filename ??= basename(source);
  } else if (source instanceof Uint8Array) {
    parts = [source];
  } else if (source instanceof ArrayBuffer) {
    parts = [new Uint8Array(source)];
  } else if (
    typeof source === 'object' &&
    source !== null &&
    (Symbol.asyncIterator in source || 'getReader' in source)
  ) {
    const path = (source as { path?: unknown }).path; // fs.createReadStream keeps its path
    if (typeof path === 'string') filename ??= basename(path);
    parts = await collect(source as AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>);
  } else {
    throw new TypeError('upload: pass a Blob, a File, bytes, a file path or a readable stream');
  }
  return {
    blob: new Blob(parts as Uint8Array<ArrayBuffer>[], { type: type ?? 'application/octet-stream' }),
    filename: filename ?? 'image',
  };
}

const timedOut = (message: string) => new TimeoutError({ status: 0, type: 'TIMEOUT', message });

/** `{products}/{productId}/images` of 1.1 or v2 (the same routes): `A` is that version's types. */
export class Images<A extends ProductApiTypes = ProductApi11> {
  constructor(
    private readonly client: Caller,
    /** The products collection's path, e.g. `/1.1/commerce/products`. */
    private readonly basePath: string,
  ) {}

  private path(productId: string, imageId?: string): string {
    const images = `${this.basePath}/${segment(productId)}/images`;
    return imageId === undefined ? images : `${images}/${segment(imageId)}`;
  }

  /**
   * Uploads an image (JPEG, PNG, GIF or WebP, at most 20 MB): 202 with its id once stored and
   * queued; follow it with `status` or `waitUntilReady`. Not retried after a network error or a
   * 5xx (a second upload would add a second image); a 429 is.
   */
  async upload(
    productId: string,
    source: UploadSource,
    options: UploadOptions = {},
  ): Promise<A['imageUploaded']> {
    const { filename: _f, contentType: _c, ...call } = options;
    const { blob, filename } = await uploadBlob(source, options);
    const form = new FormData();
    form.append('file', blob, filename);
    return this.client.call({ method: 'POST', path: this.path(productId), form, ...call });
  }

  /** QUEUED, PROCESSING, READY or ERROR. */
  status(productId: string, imageId: string, options: CallOptions = {}): Promise<A['imageStatus']> {
    return this.client.call({ method: 'GET', path: `${this.path(productId, imageId)}/status`, ...options });
  }

  /**
   * Polls `status` with backoff (250 ms doubling to 5 s by default) until READY, which it
   * resolves with. ERROR: ImageProcessingError. Past `timeoutMs`: TimeoutError. `signal`: AbortError.
   */
  async waitUntilReady(
    productId: string,
    imageId: string,
    options: WaitOptions = {},
  ): Promise<A['imageStatus']> {
    const { timeoutMs = 60_000, signal, intervalMs = 250, maxIntervalMs = 5_000 } = options;
    const deadline = Date.now() + timeoutMs;
    let last: string | undefined;
    for (let interval = intervalMs; ; interval = Math.min(maxIntervalMs, interval * 2)) {
      if (signal?.aborted) throw abortError(signal);
      // The whole poll, retries and their waits included, ends at the deadline: a per-attempt
      // timeout alone lets a retried poll run several times past it. Without AbortSignal.any (older
      // browsers, such as Safari before 17.4), the caller's signal is still checked between polls.
      const expiry = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
      const pollSignal = signal && AbortSignal.any ? AbortSignal.any([signal, expiry]) : expiry;
      let current: A['imageStatus'];
      try {
        current = await this.status(productId, imageId, { signal: pollSignal });
      } catch (error) {
        if (error instanceof AbortError && expiry.aborted && !signal?.aborted) {
          throw timedOut(`image ${imageId}: ${last ? `still ${last}` : 'no status'} after ${timeoutMs} ms`);
        }
        throw error;
      }
      if (current.status === 'READY') return current;
      if (current.status === 'ERROR') throw new ImageProcessingError(imageId);
      last = current.status;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw timedOut(`image ${imageId}: still ${current.status} after ${timeoutMs} ms`);
      await this.client.transport.sleep(Math.min(interval, remaining), signal);
    }
  }

  /** Sets the alt text (at most 1000 characters); the image as it is now. */
  setAltText(
    productId: string,
    imageId: string,
    altText: string,
    options: CallOptions = {},
  ): Promise<A['image']> {
    const path = this.path(productId, imageId);
    return this.client.call({ method: 'POST', path, json: { altText }, ...options });
  }

  /** `POST .../images/{imageId}`: the body of the route (`{ altText }`, plain or change-wrapped). */
  update(
    productId: string,
    imageId: string,
    body: A['imageUpdate'],
    options: CallOptions = {},
  ): Promise<A['image']> {
    return this.client.call({ method: 'POST', path: this.path(productId, imageId), json: body, ...options });
  }

  /** Moves the image right after `afterImageId`, or first with null. */
  async reorder(
    productId: string,
    imageId: string,
    afterImageId: string | null,
    options: CallOptions = {},
  ): Promise<void> {
    await this.client.call({
      method: 'POST',
      path: `${this.path(productId, imageId)}/order`,
      json: { afterImageId },
      ...options,
    });
  }

  /** Variants that showed it get `image: null`. */
  async delete(productId: string, imageId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: this.path(productId, imageId), ...options });
  }
}
