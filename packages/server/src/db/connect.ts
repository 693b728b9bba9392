import { openDatabase, type DatabaseHandle } from './database.ts';
import { startEmbedded } from './embedded.ts';
import { migrateToLatest, newerMigrations } from './migrate.ts';

export interface Connection extends DatabaseHandle {
  /** Closes the pool, then stops the embedded server if this process owns it. */
  shutdown(): Promise<void>;
}

/** The configured database (DATABASE_URL, or the embedded server under DATA_DIR), migrated. */
export async function connect(
  config: { databaseUrl: string | undefined; dataDir: string },
  poolSize = 10,
): Promise<Connection> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbedded(config.dataDir, { keepRunning: true });
  const handle = openDatabase(config.databaseUrl ?? embedded!.url, { max: poolSize });
  try {
    const newer = await newerMigrations(handle.db);
    if (newer.length) {
      // One line for the operator, on stderr as the embedded database's (stdout is the log).
      process.stderr.write(
        `emporium: the database is migrated past this release (${newer.join(', ')}); running on it\n`,
      );
    } else await migrateToLatest(handle.db);
  } catch (error) {
    await handle.close();
    await embedded?.stop();
    throw error;
  }
  return {
    ...handle,
    shutdown: async () => {
      await handle.close();
      await embedded?.stop();
    },
  };
}
