import type { FastifyInstance } from 'fastify';

/** The page's markup without the line breaks and indentation between tags that templates leave. */
export function squash(body: string): string {
  return body
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n?>\n?/g, '>')
    .replace(/\n</g, '<')
    .replace(/\n/g, ' ');
}

/** A GET of a store page as a browser without cookies sends it, its markup squashed. */
export function storeGetter(app: () => FastifyInstance) {
  return async (url: string, headers: Record<string, string> = {}) => {
    const res = await app().inject({ method: 'GET', url, headers });
    return { statusCode: res.statusCode, headers: res.headers, body: squash(res.body) };
  };
}

/** The path of a product's `url`, which the API gives absolute. */
export const pathOf = (product: { url: string }) => new URL(product.url).pathname;
