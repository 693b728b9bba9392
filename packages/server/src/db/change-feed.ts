import { EventEmitter } from 'node:events';
import pg from 'pg';

/** The channel migration 002's triggers notify on, with payloads `kind:key[:detail]`. */
export const CHANGES_CHANNEL = 'emporium_changes';

const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export type ChangeKind = 'product' | 'api_key' | 'oauth_grant';

/**
 * Changes announced by the database on one LISTEN connection, so the in-process caches of every
 * instance (versioned-cache.ts) drop what any instance, or the CLI, changed. A cache may rely on
 * the feed only while `live`: while the connection is down notifications are lost, so every
 * cache is reset when it is back ('live' event) and readers ask the database meanwhile.
 *
 * Events: 'change' (kind, key, detail), 'live', 'down'.
 */
export class ChangeFeed extends EventEmitter {
  private client: pg.Client | undefined;
  private connected = false;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly url: string) {
    super();
  }

  get live(): boolean {
    return this.connected;
  }

  /** Connects in the background; reads go to the database until the feed is live. */
  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
      application_name: 'emporium change feed',
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.dispatch(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    this.connected = true;
    this.retryMs = RETRY_MIN_MS;
    this.emit('live');
    this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
  }

  /** A connection that silently died (no FIN, no error) is found by a query that does not answer. */
  private async heartbeat(client: pg.Client): Promise<void> {
    try {
      await client.query('SELECT 1');
      if (this.client === client) this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
    } catch {
      this.lost(client);
    }
  }

  private dispatch(payload: string): void {
    const [kind, key, detail] = payload.split(':');
    if (kind && key) this.emit('change', kind as ChangeKind, key, detail);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return; // an old connection's late events
    this.drop();
    void client.end().catch(() => {});
    if (this.stopped) return;
    this.schedule(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private drop(): void {
    this.client = undefined;
    clearTimeout(this.timer);
    if (this.connected) {
      this.connected = false;
      this.emit('down');
    }
  }

  private schedule(task: () => Promise<void>, ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void task(), ms);
    this.timer.unref();
  }
}
