import type { FastifyReply } from 'fastify';
import { websitePath } from '../shared/store-urls.ts';
import { html, type Html } from '../pages/html.ts';

/** The store a page belongs to; absent on a page for an address that names no store. */
export interface StoreFrame {
  websiteId: string;
  /** The website's title, the store's name in the header. */
  title: string;
}

export interface StorePageOptions {
  /** The `<meta name="description">`; none when absent. */
  description?: string;
  /** The page's `<h1>`; the title when absent, none when false (the body has its own). */
  heading?: string | false;
  /** The `<title>` as given (an SEO title), without the store's name after it. */
  exactTitle?: boolean;
}

/**
 * Every store page: one stylesheet from this origin, no script, readable on a phone; a skip
 * link to the content for keyboard users, the store's name, a link to the cart.
 */
export function storePage(
  store: StoreFrame | undefined,
  title: string,
  body: Html,
  options: StorePageOptions = {},
): Html {
  const root = store ? websitePath(store.websiteId) : undefined;
  const heading = options.heading ?? title;
  const fullTitle =
    store && !options.exactTitle && title !== store.title ? `${title} · ${store.title}` : title;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${fullTitle}</title>
        ${options.description ? html`<meta name="description" content="${options.description}" />` : ''}
        <link rel="stylesheet" href="/assets/store.css" />
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header class="shop-top">
          ${
            store
              ? html`<a class="shop-name" href="${root}">${store.title}</a>
                  <nav aria-label="Store"><a href="${root}/cart">Cart</a></nav>`
              : html`<span class="shop-name">Store</span>`
          }
        </header>
        <main id="content" tabindex="-1">${heading === false ? '' : html`<h1>${heading}</h1>`} ${body}</main>
        <footer class="shop-foot"><p>Powered by Emporium</p></footer>
      </body>
    </html>`;
}

/** Store pages carry this browser's CSRF token, so no shared cache may keep them. */
export function sendStorePage(reply: FastifyReply, status: number, body: Html | string) {
  return reply
    .code(status)
    .header('cache-control', 'private, no-cache')
    .type('text/html; charset=utf-8')
    .send(typeof body === 'string' ? body : body.value);
}
