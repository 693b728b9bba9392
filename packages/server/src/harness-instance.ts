import path from 'node:path';
import { loadConfig, type Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { databaseUrl, type DatabaseServer } from './harness-database.ts';
import { startInstance, type Instance } from './instance.ts';
import { FileImageStorage } from './media/storage.ts';
import { systemClock } from './shared/clock.ts';
import { freePort } from './shared/net.ts';

/*
 * The instance a test harness (harness.ts) runs: the service's configuration as a test wants it
 * (its own database and folder, 127.0.0.1, the test controls on, sign-ins unthrottled), started
 * on a free port with its workers in the test process.
 */

export interface HarnessOptions {
  /** A PostgreSQL server to make the instance's database on; an embedded one (one a process) otherwise. */
  databaseUrl?: string;
  /** The demo site `npm start` makes; none by default. */
  demo?: boolean;
  /** The service's log level: `warn` by default, so that a test run shows only what went wrong. */
  logLevel?: Config['logLevel'];
  /** API requests a credential may make a minute: the platform's 300 by default. */
  rateLimitPerMinute?: number;
  /** A site fixture (docs/fixtures.md), as a file's path or the document, loaded at start; reset() goes back to it. */
  fixture?: string | object;
}

/** Sign-ins and consent answers a minute: the harness answers as fast as a test asks. */
const HARNESS_SIGN_INS_PER_MINUTE = 1_000_000;

function harnessConfig(port: number, folder: string, options: HarnessOptions): Config {
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: folder,
    LOG_LEVEL: options.logLevel ?? 'warn',
  });
  return {
    ...config,
    demoSite: false, // made once by Harness.start, kept by its snapshot
    // An app under test listens on 127.0.0.1 over plain http.
    webhookAllowPrivate: true,
    signInPerMinute: HARNESS_SIGN_INS_PER_MINUTE,
    rateLimitPerMinute: options.rateLimitPerMinute ?? config.rateLimitPerMinute,
    webhookWorkers: 1,
    // The test controls over HTTP too, whichever database, for tests in another process.
    testControls: true,
  };
}

async function startOn(
  config: Config,
  server: DatabaseServer,
  database: string,
  folder: string,
): Promise<{ instance: Instance; handle: DatabaseHandle }> {
  const handle = openDatabase(databaseUrl(server.url, database), { max: 10 });
  try {
    const instance = await startInstance({
      config,
      database: handle,
      storage: new FileImageStorage(path.join(folder, 'images')),
      clock: systemClock,
    });
    return { instance, handle };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Ports others may take between our look and our listen: a few tries. */
const PORT_TRIES = 5;

/**
 * The instance on `database` of `server`, its files in `folder`, listening on a port that was
 * free a moment before; the configuration it was started with names that port.
 */
export async function startOnFreePort(
  server: DatabaseServer,
  database: string,
  folder: string,
  options: HarnessOptions,
): Promise<{ instance: Instance; handle: DatabaseHandle; config: Config }> {
  for (let attempt = 1; ; attempt++) {
    const config = harnessConfig(await freePort(), folder, options);
    try {
      return { ...(await startOn(config, server, database, folder)), config };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === PORT_TRIES) throw error;
    }
  }
}
