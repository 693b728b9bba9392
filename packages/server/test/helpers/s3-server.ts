import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { S3ImageStorage } from '../../src/media/s3-storage.ts';

/** s3rver accepts any signature made with these. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
/** The same, as a process started with IMAGE_STORAGE_URL reads them (the AWS SDK's chain). */
export const S3_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
};
export const TEST_BUCKET = 'emporium-test';

/**
 * An S3-compatible server (s3rver) on 127.0.0.1 for one test file, with its objects in a temporary
 * folder. It can be stopped and started again on the same port, for outages.
 */
export class TestS3Server {
  private server: S3rver | undefined;
  private port = 0;

  private constructor(private readonly folder: string) {}

  static async start(): Promise<TestS3Server> {
    const s3 = new TestS3Server(await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-s3-')));
    await s3.resume();
    return s3;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it again after stop(), on the same port and with the same objects. */
  async resume(): Promise<void> {
    const server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      silent: true,
      directory: this.folder,
      configureBuckets: [{ name: TEST_BUCKET, configs: [] }],
    });
    this.port = (await server.run()).port;
    this.server = server;
  }

  /** An outage: the port refuses connections until resume(). */
  async stop(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }

  /** A storage of its own under a fresh prefix of the bucket. */
  storage(prefix = `images-${randomBytes(4).toString('hex')}/`): S3ImageStorage {
    return new S3ImageStorage({
      bucket: TEST_BUCKET,
      prefix,
      endpoint: this.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
    });
  }

  async close(): Promise<void> {
    await this.stop();
    await fs.rm(this.folder, { recursive: true, force: true });
  }
}
