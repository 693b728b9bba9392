import type { TestContext } from './test-app.ts';

type Pool = TestContext['api']['pool'];

/**
 * The app's pool, but the first query whose SQL matches `pattern` is followed by `change`, before
 * its rows are given back: a write that lands between two reads of one request.
 */
export function changingAfter(pool: Pool, pattern: RegExp, change: () => Promise<void>) {
  const state = { changed: false };
  const wrapped = {
    query: async (query: { text: string }) => {
      const result = await pool.query(query as never);
      if (!state.changed && pattern.test(query.text)) {
        state.changed = true;
        await change();
      }
      return result;
    },
  } as unknown as Pool;
  return { pool: wrapped, state };
}
