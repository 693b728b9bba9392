import { EventEmitter } from 'node:events';
import { KeptConnection } from './kept-connection.ts';

/** The channel the trigger functions of db/functions/ notify on, with payloads `kind:key[:detail]`. */
export const CHANGES_CHANNEL = 'emporium_changes';

export type ChangeKind =
  | 'product'
  | 'catalog'
  | 'orders'
  | 'api_key'
  | 'oauth_grant'
  | 'oauth_client'
  | 'site_clock'
  | 'fault_rules';

/**
 * Changes announced by the database on one LISTEN connection, so the in-process caches of every
 * instance (versioned-cache.ts) drop what any instance, or the CLI, changed. A cache may rely on
 * the feed only while `live`: while the connection is down notifications are lost, so every
 * cache is reset when it is back ('live' event) and readers ask the database meanwhile.
 *
 * Events: 'change' (kind, key, detail), 'live', 'down'.
 */
export class ChangeFeed extends EventEmitter {
  private readonly connection: KeptConnection;

  constructor(url: string) {
    super();
    this.connection = new KeptConnection(url, 'emporium change feed', async (client) => {
      client.on('notification', (message) => this.dispatch(message.payload ?? ''));
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    });
    this.connection.on('up', () => this.emit('live'));
    this.connection.on('down', () => this.emit('down'));
  }

  get live(): boolean {
    return this.connection.up;
  }

  /** Connects in the background; reads go to the database until the feed is live. */
  start(): void {
    this.connection.start();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  /**
   * Every cache drops what it holds, as when the feed comes back: for a change no trigger
   * announced (the test harness's reset, which empties and refills the tables at once).
   */
  forgetEverything(): void {
    this.emit('live');
  }

  private dispatch(payload: string): void {
    const [kind, key, detail] = payload.split(':');
    if (kind && key) this.emit('change', kind as ChangeKind, key, detail);
  }
}
