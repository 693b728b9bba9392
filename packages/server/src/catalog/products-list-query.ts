import { ValidationError } from '../shared/errors.ts';
import { parseWindow } from '../shared/iso-time.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { SERVED, servedTypes, type ApiVersion, type ProductType } from './product-types.ts';
import type * as repo from './products.repo.ts';
import type { ListProductsQueryT } from './products.schemas.ts';

/**
 * The product list's filters, from the query string or from the cursor that carries them from
 * page to page, and that cursor: one place for what a list cursor holds.
 */

const MAX_QUERY_WORDS = 10;

/** What each version names its list's cursors: one version's cursor is not another's. */
const LIST: Record<ApiVersion, string> = { '1.1': 'products', v2: 'products-v2' };

/** What a cursor remembers: the last position seen and the filters of the first request. */
interface ProductCursor {
  w: string;
  m: number;
  i: string;
  q?: string[];
  t?: string[];
  a?: number;
  b?: number;
}

/** `type=A,B` or `type=A&type=B`, of the types the version serves. */
function parseTypes(type: string | string[], api: ApiVersion): ProductType[] {
  const served = SERVED[api];
  const names = served.join(', ');
  const types = [type]
    .flat()
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  if (types.length === 0) throw new ValidationError(`type: name at least one product type: ${names}`);
  const unknown = types.find((t) => !served.includes(t as ProductType));
  if (unknown !== undefined)
    throw new ValidationError(`type: unknown product type "${unknown}"; use ${names}`);
  return [...new Set(types)] as ProductType[];
}

/** The list filters from the query string, or from the cursor that carried them forward. */
export function parseListQuery(
  query: ListProductsQueryT,
  cursors: CursorCodec,
  websiteId: string,
  api: ApiVersion,
): repo.PageFilter {
  const present = (v: string | string[] | undefined) =>
    Array.isArray(v) ? v.length > 0 : v !== undefined && v !== '';
  if (present(query.cursor)) {
    if (
      present(query.modifiedAfter) ||
      present(query.modifiedBefore) ||
      present(query.query) ||
      present(query.type)
    ) {
      throw new ValidationError(
        'cursor: cannot be combined with other parameters; the cursor carries the original filters',
      );
    }
    const c = cursors.decode<ProductCursor>(LIST[api], query.cursor!);
    if (c.w !== websiteId || typeof c.m !== 'number' || typeof c.i !== 'string') {
      throw new ValidationError('cursor: not a cursor returned by this API');
    }
    return {
      after: { modifiedOn: new Date(c.m), id: c.i },
      words: c.q,
      // A cursor names the types it was given; without, the version's own.
      types: (c.t as ProductType[] | undefined) ?? servedTypes(api)?.slice(),
      window:
        c.a !== undefined && c.b !== undefined ? { after: new Date(c.a), before: new Date(c.b) } : undefined,
    };
  }
  const filter: repo.PageFilter = {};
  filter.window = parseWindow(
    query.modifiedAfter,
    query.modifiedBefore,
    (absent) =>
      `${absent}: is required together with ${absent === 'modifiedAfter' ? 'modifiedBefore' : 'modifiedAfter'}`,
  );
  const types = present(query.type) ? parseTypes(query.type!, api) : servedTypes(api);
  if (types) filter.types = [...types];
  if (present(query.query)) {
    const words = query.query!.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length > MAX_QUERY_WORDS) throw new ValidationError(`query: at most ${MAX_QUERY_WORDS} words`);
    if (words.length) filter.words = words;
  }
  return filter;
}

/** The cursor to the page after `last`, carrying the filters forward. */
export function cursorAfter(
  cursors: CursorCodec,
  api: ApiVersion,
  websiteId: string,
  filter: repo.PageFilter,
  last: { id: string; version: number },
): string {
  const cursor: ProductCursor = { w: websiteId, m: last.version, i: last.id };
  if (filter.words) cursor.q = filter.words;
  if (filter.types) cursor.t = filter.types;
  if (filter.window) {
    cursor.a = filter.window.after.getTime();
    cursor.b = filter.window.before.getTime();
  }
  return cursors.encode(LIST[api], cursor);
}
