import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { QueueStat } from '../jobs/queue-stats.ts';
import { RequestDurations } from './request-durations.ts';

/** What the metrics read when Prometheus scrapes, rather than on every change. */
export interface MetricSources {
  /** The database pool of this process. */
  pool?: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /** The job queues, shared by every process on the database. */
  queues?: () => Promise<QueueStat[]>;
  /** Node's process metrics (CPU, memory, event loop lag, GC): once per process, as they watch the process. */
  processMetrics?: boolean;
}

/**
 * The Prometheus metrics of one process (`emporium serve` or `emporium worker`), served at
 * `/metrics`. Labels hold route patterns, statuses, queue names and outcomes only: never ids, URLs
 * or anything of one website, so the series stay few and the page tells nothing about a store.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Every answered request, observed once in the onResponse hook (metrics.routes.ts). */
  readonly requests = new RequestDurations(
    'emporium_http_request_duration_seconds',
    'Time from request to response, by method, route pattern and status',
  );

  private readonly webhookAttempts = new Counter({
    name: 'emporium_webhook_attempts_total',
    help: 'Webhook notification posts, by outcome: delivered (a 2xx) or failed (another status, a timeout, a network error)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly webhookEnded = new Counter({
    name: 'emporium_webhook_deliveries_ended_total',
    help: 'Webhook notifications that need no more attempts, by status: DELIVERED, FAILED (retries ran out) or CANCELLED',
    labelNames: ['status'],
    registers: [this.registry],
  });

  private readonly webhookLag = new Histogram({
    name: 'emporium_webhook_delivery_lag_seconds',
    help: 'Time from a notification being queued to its delivery, retries included',
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 48 * 3600],
    registers: [this.registry],
  });

  private readonly imageTime = new Histogram({
    name: 'emporium_image_processing_seconds',
    help: 'Time to render every width of an uploaded image, by outcome: ready, error (cannot be decoded) or retry (failed, tried again)',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  /** Read from the request log when scraped: a line dropped under load costs it no metric update. */
  private apiLogDrops: () => number = () => 0;
  private readonly apiLogDroppedTotal = new Counter({
    name: 'emporium_api_log_dropped_total',
    help: 'Request log lines lost: over its rate, its buffer full, or the database refused their batch',
    registers: [this.registry],
    collect: () => {
      this.apiLogDroppedTotal.reset();
      this.apiLogDroppedTotal.inc(this.apiLogDrops());
    },
  });

  private readonly injectedFaults = new Counter({
    name: 'emporium_injected_faults_total',
    help: 'Faults a test set up and the API answered with (faults/), by effect: status, latency, reset or slow_body; counted apart so they are not taken for real errors',
    labelNames: ['effect'],
    registers: [this.registry],
  });

  constructor(sources: MetricSources = {}) {
    this.registry.registerMetric(this.requests as unknown as Metric);
    if (sources.pool) this.watchPool(sources.pool);
    if (sources.queues) this.watchQueues(sources.queues);
    if (sources.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** One post of a webhook notification, and what became of the notification. */
  webhookAttempted(delivered: boolean): void {
    this.webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
  }

  /** A notification is done: delivered `lagSeconds` after it was queued, or given up. */
  webhookDone(status: 'DELIVERED' | 'FAILED' | 'CANCELLED', lagSeconds?: number): void {
    this.webhookEnded.inc({ status });
    if (status === 'DELIVERED' && lagSeconds !== undefined) this.webhookLag.observe(Math.max(0, lagSeconds));
  }

  /** Where the count of request log lines not written is read from when scraped (api-log/). */
  apiLogDroppedFrom(read: () => number): void {
    this.apiLogDrops = read;
  }

  /** A request answered with an injected fault (faults/inject.ts). */
  faultInjected(effect: 'status' | 'latency' | 'reset' | 'slow_body'): void {
    this.injectedFaults.inc({ effect });
  }

  /** Starts timing an image job; the returned function ends it with the job's outcome. */
  imageStarted(): (outcome: 'ready' | 'error' | 'retry') => void {
    const end = this.imageTime.startTimer();
    return (outcome) => void end({ outcome });
  }

  private watchPool(pool: NonNullable<MetricSources['pool']>): void {
    new Gauge({
      name: 'emporium_db_pool_connections',
      help: "Connections of this process's database pool, by state: busy (running a query or transaction) or idle",
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
      },
    });
    new Gauge({
      name: 'emporium_db_pool_waiting',
      help: 'Queries waiting for a free connection of the pool',
      registers: [this.registry],
      collect() {
        this.set(pool.waitingCount);
      },
    });
  }

  private watchQueues(read: () => Promise<QueueStat[]>): void {
    const gauge = (name: string, help: string, value: (stat: QueueStat) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['queue'],
        registers: [this.registry],
        async collect() {
          // A database that cannot answer shows as no samples, not as stale numbers or a failed scrape.
          this.reset();
          const stats = await read().catch(() => []);
          for (const stat of stats) this.set({ queue: stat.queue }, value(stat));
        },
      });
    gauge(
      'emporium_job_queue_due',
      'Jobs due and not yet taken by a worker, per queue (counted up to 100000)',
      (s) => s.due,
    );
    gauge(
      'emporium_job_queue_delayed',
      'Jobs waiting for a later start (retries, delayed webhook attempts), per queue (counted up to 100000)',
      (s) => s.delayed,
    );
    gauge(
      'emporium_job_queue_oldest_due_seconds',
      'How long the longest-waiting due job has been due, per queue; 0 when none is',
      (s) => s.oldestDueSeconds,
    );
  }
}
