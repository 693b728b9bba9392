import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseUser } from './db/database-user.ts';
import { binaries } from './db/embedded.ts';

/*
 * The cached cluster of the test harness (harness-database.ts): a stopped, initialised cluster
 * holding the migrated template, kept in the temporary folder for every later process of this
 * machine: copying it takes a tenth of the time of initdb and the migrations. Its name carries a
 * digest of the migrations, the SQL functions and the binaries' package, so a change of any of
 * them makes a new one.
 */

/** The migrated template's database in the cached cluster. */
export const CACHED_TEMPLATE = 'emporium_harness_template';
/** What startEmbedded keeps in its folder: the data directory and the superuser's password. */
const CLUSTER_FILES = ['postgres', 'postgres-password'];

async function clusterCacheFolder(): Promise<string> {
  const digest = createHash('sha256');
  for (const folder of ['db/migrations', 'db/functions']) {
    const dir = new URL(`./${folder}/`, import.meta.url);
    for (const name of fs.readdirSync(dir).sort())
      digest.update(name).update(fs.readFileSync(new URL(name, dir)));
  }
  digest.update(fs.readFileSync(new URL('./jobs/queue.ts', import.meta.url)));
  const { pg_ctl } = await binaries(); // another release of the binaries: another cluster
  const binary = fs.statSync(pg_ctl);
  digest.update(`${binary.size}:${binary.mtimeMs}`);
  return path.join(os.tmpdir(), `emporium-harness-cluster-${digest.digest('hex').slice(0, 16)}`);
}

/** The cached cluster copied into `folder`, owned by the database's user: whether there was one. */
export async function copyOfCachedCluster(folder: string): Promise<boolean> {
  const cache = await clusterCacheFolder();
  if (!fs.existsSync(path.join(cache, 'postgres', 'PG_VERSION'))) return false;
  for (const name of CLUSTER_FILES)
    fs.cpSync(path.join(cache, name), path.join(folder, name), { recursive: true });
  fs.chmodSync(path.join(folder, 'postgres'), 0o700); // PostgreSQL refuses a data directory others may read
  const runAs = await databaseUser();
  if (runAs) chownTree(path.join(folder, 'postgres'), runAs.uid, runAs.gid);
  return true;
}

function chownTree(target: string, uid: number, gid: number): void {
  fs.chownSync(target, uid, gid);
  if (!fs.statSync(target).isDirectory()) return;
  for (const name of fs.readdirSync(target)) chownTree(path.join(target, name), uid, gid);
}

/** Keeps a copy of the stopped cluster in `folder` for later processes; another's copy may win. */
export async function saveClusterToCache(folder: string): Promise<void> {
  const cache = await clusterCacheFolder();
  const building = `${cache}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    for (const name of CLUSTER_FILES)
      fs.cpSync(path.join(folder, name), path.join(building, name), { recursive: true });
    fs.renameSync(building, cache);
  } catch {
    // Another process saved it first, or the folder is full: this process did not need it.
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}
