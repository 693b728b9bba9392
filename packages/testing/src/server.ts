import { register, type NamespacedUnregister } from 'tsx/esm/api';
import type * as HarnessModule from '@emporium/server/src/harness.ts';
import type * as DatabaseModule from '@emporium/server/src/harness-database.ts';

/*
 * The server's harness (packages/server/src/harness.ts), loaded from its TypeScript sources when
 * an instance starts. Its types are the server's own; they stay out of this package's public
 * declarations (index.ts does not hand them on), so that an app's type check does not read the
 * whole service.
 */

/**
 * The server's TypeScript sources through tsx, in a namespace of their own: the test files keep
 * whatever loader they run under (node, vitest, jest). One namespace a process, so that every
 * import shares its modules (the process's database server among them).
 */
let server: NamespacedUnregister | undefined;
function serverImport<T>(file: string): Promise<T> {
  server ??= register({ namespace: 'emporium-testing' });
  return server.import(`@emporium/server/src/${file}`, import.meta.url) as Promise<T>;
}

/**
 * The harness, its database server already starting: the small database module loads first and
 * starts initdb and the template's migrations, while the rest of the service's modules load.
 */
export async function loadHarness(databaseUrl: string | undefined): Promise<typeof HarnessModule> {
  const { databaseServer } = await serverImport<typeof DatabaseModule>('harness-database.ts');
  const starting = databaseServer(databaseUrl);
  starting.catch(() => {}); // awaited, and reported, by startHarness
  return serverImport<typeof HarnessModule>('harness.ts');
}
