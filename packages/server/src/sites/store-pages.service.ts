import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { uniqueViolation } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { findWebsite } from './websites.repo.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { firstFreeSlug, slugify } from '../shared/slug.ts';
import { insertStorePage, listStorePages, storePageSlugs, type StorePageRow } from './store-pages.repo.ts';
import { STORE_PATHS } from '../shared/store-urls.ts';

const PAGE_SIZE = 50;

export async function createStorePage(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: { websiteId: string; title: string },
): Promise<{ storePageId: string }> {
  const title = input.title.trim();
  if (!title || title.length > 200) throw new ValidationError('title: 1 to 200 characters');
  if (!(await findWebsite(deps.db, input.websiteId)))
    throw new NotFound(`website not found: ${input.websiteId}`);
  const storePageId = deps.ids.objectId();
  // Two pages created at once may pick the same free slug; the unique constraint decides, then retry.
  for (let attempt = 0; ; attempt++) {
    const taken = new Set([...(await storePageSlugs(deps.db, input.websiteId)), ...STORE_PATHS]);
    const slug = firstFreeSlug(slugify(title, 'page'), taken);
    try {
      await insertStorePage(deps.db, {
        id: storePageId,
        website_id: input.websiteId,
        title,
        url_slug: slug,
        is_enabled: true,
        created_at: deps.clock.now(input.websiteId),
      });
      return { storePageId };
    } catch (error) {
      if (!uniqueViolation(error) || attempt >= 5) throw error;
    }
  }
}

interface StorePageCursor {
  w: string;
  c: number;
  i: string;
}

export async function storePagesPage(
  deps: { db: Db; cursors: CursorCodec },
  websiteId: string,
  cursor: string | undefined,
): Promise<{ storePages: StorePageRow[]; nextCursor: string | null }> {
  let after: { createdAt: Date; id: string } | undefined;
  if (cursor) {
    const position = deps.cursors.decode<StorePageCursor>('store_pages', cursor);
    if (position.w !== websiteId) throw new ValidationError('cursor: not a cursor returned by this API');
    after = { createdAt: new Date(position.c), id: position.i };
  }
  const rows = await listStorePages(deps.db, websiteId, after, PAGE_SIZE + 1);
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > PAGE_SIZE && last
      ? deps.cursors.encode('store_pages', {
          w: websiteId,
          c: last.created_at.getTime(),
          i: last.id,
        } satisfies StorePageCursor)
      : null;
  return { storePages: page, nextCursor };
}
