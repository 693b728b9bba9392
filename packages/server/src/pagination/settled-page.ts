/** Reads of a page in all, when its documents keep changing under it. */
const ATTEMPTS = 3;

/**
 * A list page is read in two steps: its (id, version) rows, then the documents at those versions.
 * A document changed between the two has moved elsewhere in the order and is left out; on the
 * last page a client would never see it. So the page is read again, its rows straight from the
 * database (`fresh`), until every document is at its row's version, or, for one that keeps
 * changing, a few reads have passed.
 */
export async function settledPage<T>(
  read: (fresh: boolean) => Promise<{ body: T; complete: boolean }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { body, complete } = await read(attempt > 1);
    if (complete || attempt === ATTEMPTS) return body;
  }
}
