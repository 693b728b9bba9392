import { EventEmitter } from 'node:events';
import pg from 'pg';

const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * One connection of its own, kept for as long as it is wanted, for what a pooled connection
 * cannot hold: a LISTEN, a session lock. Each time it is made, `open` sets it up, and it is up
 * once that succeeded. A heartbeat finds a connection that silently died (no FIN, no error); a
 * lost connection, or one whose `open` failed, is made again after a backoff of 0.1 to 5 s.
 *
 * Events: 'up' (the connection is set up), 'down' (an up connection was lost or stopped).
 */
export class KeptConnection extends EventEmitter {
  private client: pg.Client | undefined;
  private isUp = false;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    /** The application_name the server shows for it. */
    private readonly name: string,
    private readonly open: (client: pg.Client) => Promise<void>,
  ) {
    super();
  }

  get up(): boolean {
    return this.isUp;
  }

  /** Connects in the background; 'up' tells when it is set up. */
  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
      application_name: this.name,
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await this.open(client);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    this.isUp = true;
    this.retryMs = RETRY_MIN_MS;
    this.emit('up');
    this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
  }

  private async heartbeat(client: pg.Client): Promise<void> {
    try {
      await client.query('SELECT 1');
      if (this.client === client) this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
    } catch {
      this.lost(client);
    }
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
    if (this.isUp) {
      this.isUp = false;
      this.emit('down');
    }
  }

  private schedule(task: () => Promise<void>, ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void task(), ms);
    this.timer.unref();
  }
}
