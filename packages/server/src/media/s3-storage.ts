import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { ServiceUnavailable } from '../shared/errors.ts';
import { checkFileName, checkFolder, IMAGE_ID, type ImageFolder, type ImageStorage } from './storage.ts';

/** Where the objects live and how to reach the store; credentials from the SDK's default chain. */
export interface S3Settings {
  bucket: string;
  /** Prepended to every key: empty, or ending in `/`. */
  prefix: string;
  /** An S3-compatible store (MinIO, R2, ...); AWS's own endpoint when unset. */
  endpoint?: string;
  region?: string;
  /** bucket in the path rather than the host name, as most self-hosted stores want. */
  forcePathStyle: boolean;
  /** Only for tests against a local store; production reads the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Parts of a streamed upload held in memory at once: one, of the SDK's smallest part size (5 MiB).
 * An upload smaller than a part is a single PutObject.
 */
const UPLOAD_PARTS_AT_ONCE = 1;
/** What DeleteObjects takes at most in one request. */
const DELETE_BATCH = 1000;

/** Any failure of the store itself (unreachable, refusing, timing out): a 503, never a lost image. */
function unavailable(error: unknown): ServiceUnavailable {
  return Object.assign(new ServiceUnavailable('the image storage is unavailable'), { cause: error });
}

/**
 * The object is not there. Only NoSuchKey: a 404 of a missing bucket (NoSuchBucket, a deleted or
 * mistyped one) is an outage, a 503 and a job tried again, never an image taken for gone.
 */
function isMissing(error: unknown): boolean {
  return (error as { name?: string })?.name === 'NoSuchKey';
}

/**
 * Sockets to the store a process may hold: each image file being sent holds one until the client
 * has read it all, so the SDK's default of 50 would leave uploads and the readiness check waiting
 * behind slow downloads.
 */
const MAX_SOCKETS = 256;
/** The readiness check's HeadBucket: given up with /readyz's own limit, not retried for a minute. */
const CHECK_TIMEOUT_MS = 1_000;

/**
 * Image files as objects `<prefix><imageId>/<name>` in an S3 bucket. An object appears whole or
 * not at all: PutObject and a completed multipart upload are atomic, and a multipart upload that
 * fails is aborted (its parts are never an object).
 */
export class S3ImageStorage implements ImageStorage {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region ?? 'us-east-1',
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // The CRC checksums the SDK adds to every request since v3.729 are refused by several
      // S3-compatible stores (R2, B2, older MinIO): with an endpoint of its own, only where the
      // operation needs them. AWS itself keeps the SDK's default integrity checks.
      ...(settings.endpoint && {
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
      // An unreachable store answers a request in seconds, not after the operating system's timeout.
      requestHandler: {
        connectionTimeout: 3_000,
        socketTimeout: 30_000,
        httpAgent: { maxSockets: MAX_SOCKETS },
        httpsAgent: { maxSockets: MAX_SOCKETS },
      },
    });
  }

  /** One storage a folder, made once: each holds a client of its own, with its sockets. */
  private readonly folders = new Map<string, S3ImageStorage>();

  within(folder: string): ImageStorage {
    let storage = this.folders.get(folder);
    if (!storage) {
      storage = new S3ImageStorage({
        ...this.settings,
        prefix: `${this.settings.prefix}${checkFolder(folder)}/`,
      });
      this.folders.set(folder, storage);
    }
    return storage;
  }

  private key(imageId: string, name: string): string {
    checkFileName(imageId, name);
    return `${this.settings.prefix}${imageId}/${name}`;
  }

  async put(imageId: string, name: string, data: Buffer | Readable): Promise<void> {
    const params = { Bucket: this.settings.bucket, Key: this.key(imageId, name) };
    if (Buffer.isBuffer(data)) {
      await this.client.send(new PutObjectCommand({ ...params, Body: data })).catch((error) => {
        throw unavailable(error);
      });
      return;
    }
    // A failure of the incoming stream (a client gone, a file over the limit) is the caller's
    // error, not the store's, whatever the abort of the upload answers; it may have failed before
    // it was handed over, and is then found on the stream.
    let sourceError: unknown;
    data.once('error', (error) => (sourceError = error));
    const upload = new Upload({
      client: this.client,
      params: { ...params, Body: data },
      queueSize: UPLOAD_PARTS_AT_ONCE,
    });
    try {
      await upload.done();
    } catch (error) {
      throw sourceError ?? data.errored ?? unavailable(error);
    }
  }

  private async get(imageId: string, name: string) {
    try {
      return await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(imageId, name) }),
      );
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw unavailable(error);
    }
  }

  async open(imageId: string, name: string): Promise<{ stream: Readable; size: number } | undefined> {
    const object = await this.get(imageId, name);
    if (!object) return undefined;
    return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
  }

  async source(imageId: string, name: string): Promise<Buffer | undefined> {
    const object = await this.get(imageId, name);
    if (!object?.Body) return undefined;
    try {
      return Buffer.from(await object.Body.transformToByteArray());
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Every object under the prefix (and the image's folder, when given), page by page. */
  private async *objects(under = ''): AsyncGenerator<{ key: string; modifiedAt: Date }> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.settings.bucket,
            Prefix: `${this.settings.prefix}${under}`,
            ContinuationToken: token,
          }),
        );
      } catch (error) {
        throw unavailable(error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async remove(imageId: string): Promise<void> {
    if (!IMAGE_ID.test(imageId)) throw new Error(`not an image id: ${imageId}`);
    const keys: string[] = [];
    for await (const { key } of this.objects(`${imageId}/`)) keys.push(key);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH).map((Key) => ({ Key }));
      let failed: unknown;
      try {
        const result = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: batch, Quiet: true } }),
        );
        failed = result.Errors?.[0];
      } catch (error) {
        failed = error;
      }
      if (failed) throw unavailable(failed);
    }
  }

  /**
   * S3 lists keys in their order, so an image's objects come one after the other: one image is
   * held at a time. A store listing otherwise would show an image twice, which the sweep allows.
   */
  async *imageFolders(): AsyncGenerator<ImageFolder> {
    let current: ImageFolder | undefined;
    for await (const { key, modifiedAt } of this.objects()) {
      const imageId = key.slice(this.settings.prefix.length).split('/')[0] ?? '';
      if (!IMAGE_ID.test(imageId)) continue;
      if (current?.imageId === imageId) {
        if (current.modifiedAt < modifiedAt) current.modifiedAt = modifiedAt;
        continue;
      }
      if (current) yield current;
      current = { imageId, modifiedAt };
    }
    if (current) yield current;
  }

  async check(): Promise<void> {
    // Cheap, and needs no permission beyond those the images need (s3:ListBucket).
    const command = new HeadBucketCommand({ Bucket: this.settings.bucket });
    await this.client.send(command, { abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) }).catch((error) => {
      throw unavailable(error);
    });
  }
}
