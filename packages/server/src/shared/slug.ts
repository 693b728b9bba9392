/** URL slugs: lower-case alphanumerics and non-contiguous hyphens (spec: urlSlug). */
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SLUG_MAX = 200;

/** A slug made from a title: accents dropped, anything else between words becomes one hyphen. */
export function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  // Leave room for a "-N" suffix within the length bound.
  return slug.slice(0, SLUG_MAX - 8).replace(/-+$/, '') || fallback;
}

/** The first of base, base-2, base-3, ... that is not taken. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
