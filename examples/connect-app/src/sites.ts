import fs from 'node:fs/promises';
import path from 'node:path';

/** What the app keeps about a connected site, besides its tokens (those are in the SDK's store). */
export interface SiteRecord {
  title: string;
  /** The extension.uninstall subscription, and the secret its notifications are signed with. */
  subscriptionId: string;
  webhookSecret: string;
  connectedOn: string;
}

interface DataFile {
  sites: Record<string, SiteRecord>;
}

/**
 * The connected sites, kept in memory and written through to one JSON file. Writes are
 * serialized and atomic (a temporary file renamed over the old one), so a crash leaves either
 * the old or the new content, never half of it. The file holds webhook secrets: mode 0600.
 */
export class SiteStore {
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private readonly sites: Map<string, SiteRecord>,
  ) {}

  static async open(file: string): Promise<SiteStore> {
    let data: DataFile = { sites: {} };
    try {
      data = JSON.parse(await fs.readFile(file, 'utf8')) as DataFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return new SiteStore(file, new Map(Object.entries(data.sites ?? {})));
  }

  all(): [string, SiteRecord][] {
    return [...this.sites].sort(([, a], [, b]) => a.title.localeCompare(b.title));
  }

  get(websiteId: string): SiteRecord | undefined {
    return this.sites.get(websiteId);
  }

  set(websiteId: string, record: SiteRecord): Promise<void> {
    this.sites.set(websiteId, record);
    return this.save();
  }

  delete(websiteId: string): Promise<void> {
    this.sites.delete(websiteId);
    return this.save();
  }

  private save(): Promise<void> {
    const content = JSON.stringify({ sites: Object.fromEntries(this.sites) } satisfies DataFile, null, 2);
    const write = async () => {
      await fs.mkdir(path.dirname(path.resolve(this.file)), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      // Flushed before the rename, so a crash leaves the old file or the new one, never a torn one.
      const handle = await fs.open(tmp, 'w', 0o600);
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(tmp, this.file);
    };
    // Each write waits for the one before, whatever became of it, so the last state wins.
    this.writes = this.writes.then(write, write);
    return this.writes;
  }
}
