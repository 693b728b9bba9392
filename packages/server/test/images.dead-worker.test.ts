import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import PgBoss from 'pg-boss';
import sharp from 'sharp';
import { claimImage } from '../src/catalog/images/images.repo.ts';
import { requeueLostImages } from '../src/catalog/images/image-jobs.ts';
import { IMAGE_JOB, type ImageJobData, type ImageJobHolder } from '../src/jobs/queue.ts';
import { WorkerLock } from '../src/jobs/worker-lock.ts';
import { createProduct, multipartFile, physical } from './helpers/factories.ts';
import { IMAGE_STORAGES, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * An image whose worker died. The test plays that worker: it takes the job from the queue as a
 * worker does, marks the image as its own the way processImage does, and then "dies": its worker
 * id is one whose lock no session holds, or the lock it held is released with its connection.
 * The app runs no image worker of its own, so nothing else takes the job.
 */
let ctx: TestContext;
let site: Site;
let boss: PgBoss;
const locks: WorkerLock[] = [];
const PRODUCTS = '/1.1/commerce/products';

/** Uploads an image; answers its product and image ids. */
async function uploaded(): Promise<{ productId: string; imageId: string }> {
  const p = await createProduct(site, physical(site));
  const bytes = await sharp({ create: { width: 200, height: 100, channels: 3, background: 'red' } })
    .png()
    .toBuffer();
  const res = await site.call({
    method: 'POST',
    url: `${PRODUCTS}/${p.id}/images`,
    ...multipartFile('file', 'a.png', bytes),
  });
  assert.equal(res.statusCode, 202, res.body);
  return { productId: p.id, imageId: res.json().imageId };
}

/** Jobs taken from the queue, by image: one fetch may bring several. */
const taken = new Map<string, PgBoss.JobWithMetadata<ImageJobData>>();

/** Takes the image's job from the queue, as a worker does, and marks the image as held by `workerId`. */
async function heldBy(imageId: string, workerId: number): Promise<ImageJobHolder> {
  const fetched = await boss.fetch<ImageJobData>(IMAGE_JOB, { batchSize: 100, includeMetadata: true });
  for (const job of fetched) taken.set(job.data.imageId, job);
  const job = taken.get(imageId);
  assert.ok(job, 'the image has a queued job');
  const holder = { workerId, jobId: job.id, attempt: job.retryCount };
  assert.ok(await claimImage(ctx.db, imageId, holder));
  return holder;
}

async function liveWorker(): Promise<WorkerLock> {
  const lock = await WorkerLock.take(ctx.url);
  locks.push(lock);
  return lock;
}

/** A worker id no session of this database holds: that of a worker process that died. */
const deadWorkerId = () => randomInt(1, 2 ** 31);

async function status({ productId, imageId }: { productId: string; imageId: string }): Promise<string> {
  const res = await site.call({ method: 'GET', url: `${PRODUCTS}/${productId}/images/${imageId}/status` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().status;
}

async function jobState(jobId: string): Promise<string | undefined> {
  return (await boss.getJobById(IMAGE_JOB, jobId, { includeArchive: false }))?.state;
}

for (const storage of IMAGE_STORAGES) {
  describe(`with ${storage} storage`, () => {
    before(async () => {
      ctx = await testApp({ logLevel: 'silent', storage });
      await ctx.jobs.start();
      boss = new PgBoss({ connectionString: ctx.url, max: 2, supervise: false, schedule: false });
      boss.on('error', () => {});
      await boss.start();
      site = await ctx.site();
    });
    after(async () => {
      await Promise.all(locks.splice(0).map((lock) => lock.release()));
      await boss.stop({ graceful: false, wait: true });
      await ctx.jobs.stop();
      await ctx.close();
    });

    test('an image reads PROCESSING while its worker lives, and QUEUED as soon as the worker is gone', async () => {
      const image = await uploaded();
      assert.equal(await status(image), 'QUEUED');
      const lock = await liveWorker();
      await heldBy(image.imageId, lock.heldId());
      assert.equal(await status(image), 'PROCESSING');

      // What a process's death does to its lock: its connection closes. The server then ends that
      // session in its own time, so the status is asked until it changes, within a bound.
      await lock.release();
      const deadline = Date.now() + 5_000;
      let now = await status(image);
      while (now === 'PROCESSING' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        now = await status(image);
      }
      assert.equal(now, 'QUEUED');
    });

    test("a dead worker's job is queued again at once; a live worker's image and job are left to it", async () => {
      const lost = await uploaded();
      const held = await uploaded();
      const lostJob = await heldBy(lost.imageId, deadWorkerId());
      const heldJob = await heldBy(held.imageId, (await liveWorker()).heldId());
      assert.equal(await status(lost), 'QUEUED');

      await requeueLostImages(ctx);
      assert.equal(await jobState(lostJob.jobId), 'retry'); // handed out again after its retry delay
      assert.equal(await status(lost), 'QUEUED');
      assert.equal(await jobState(heldJob.jobId), 'active');
      assert.equal(await status(held), 'PROCESSING');
    });

    test('a job handed out again since its worker died is left to its new worker', async () => {
      const image = await uploaded();
      const first = await heldBy(image.imageId, deadWorkerId());
      // The job timed out and another worker has just taken it, before marking the image as its own.
      await boss.fail(IMAGE_JOB, first.jobId);
      const again = await boss.fetch<ImageJobData>(IMAGE_JOB, {
        batchSize: 100,
        ignoreStartAfter: true,
        includeMetadata: true,
      });
      assert.equal(again.find((job) => job.id === first.jobId)?.retryCount, first.attempt + 1);

      await requeueLostImages(ctx);
      assert.equal(await jobState(first.jobId), 'active');
      assert.equal(await status(image), 'QUEUED');
    });

    test('a live worker whose lock connection is cut takes its lock back, and its image reads PROCESSING again', async () => {
      const image = await uploaded();
      const lock = await liveWorker();
      const workerId = lock.heldId();
      await heldBy(image.imageId, workerId);
      /** The session holding the worker's lock, if any. */
      const holder = async () =>
        (
          await sql<{ pid: number }>`
        SELECT pid FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objid = ${workerId}::oid AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(ctx.db)
        ).rows[0]?.pid;
      const cut = await holder();
      assert.ok(cut);
      await sql`SELECT pg_terminate_backend(${cut}::int)`.execute(ctx.db);

      // Asked until that session has ended and another holds the lock, within a bound.
      const deadline = Date.now() + 10_000;
      let now = await holder();
      while ((now === undefined || now === cut) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        now = await holder();
      }
      assert.ok(now !== undefined && now !== cut, 'a new session holds the lock');
      assert.equal(lock.heldId(), workerId);
      assert.equal(await status(image), 'PROCESSING');
    });
  });
}
