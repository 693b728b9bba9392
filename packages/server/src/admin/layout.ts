import type { FastifyReply } from 'fastify';
import { html, type Html } from '../pages/html.ts';

export interface PageContext {
  /** The signed-in owner's email, for the header; absent on the sign-in pages. */
  email?: string;
  /** The session's CSRF token, for the sign-out form. */
  csrf?: string;
  /**
   * A page of records in tables of many columns: its column takes a laptop's whole width, so
   * the tables are shown whole rather than scrolled; its forms keep the reading width.
   */
  wide?: boolean;
}

/** Every owner page: one stylesheet from this origin, no script, readable on a phone. */
export function page(title: string, body: Html, context: PageContext = {}): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Emporium</title>
        <link rel="stylesheet" href="/assets/emporium.css" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/sites">Emporium</a>
          ${
            context.email
              ? html`<nav aria-label="Account">
                  <a href="/sites">Sites</a>
                  <a href="/apps">Developer apps</a>
                  <span class="who">${context.email}</span>
                  <form method="post" action="/logout">
                    <input type="hidden" name="csrf" value="${context.csrf}" /><button class="link">
                      Sign out
                    </button>
                  </form>
                </nav>`
              : ''
          }
        </header>
        <main ${context.wide ? html`class="wide"` : ''}>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

/**
 * A table in a box of its own, which scrolls sideways when the table is wider than the page (on
 * a phone) so that the page itself never does. The box takes the keyboard's focus, so it can be
 * scrolled without a mouse, and is a region named `label`, so a screen reader says what it holds.
 */
export function tableBox(label: string, table: Html): Html {
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

/** A list's table in a tableBox: a head row of the `headers`, then the `rows` (each a `<tr>`). */
export function listTable(label: string, headers: readonly string[], rows: readonly Html[]): Html {
  return tableBox(
    label,
    html`<table>
      <thead>
        <tr>
          ${headers.map((header) => html`<th>${header}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`,
  );
}

export function sendPage(reply: FastifyReply, status: number, body: Html) {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value);
}

/** A time for the owner, to the minute, in UTC; "never" for none. */
export function when(date: Date | null): Html | string {
  return date
    ? html`<time datetime="${date.toISOString()}"
        >${date.toISOString().slice(0, 16).replace('T', ' ')} UTC</time
      >`
    : 'never';
}
