/**
 * HTML with every interpolated value escaped: `html` returns Html, and only Html is inserted
 * as is. Site titles, product names and SKUs come from the store owner, so none of them may
 * reach the page unescaped.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | null | undefined | readonly Html[];

export function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map((v: Html) => v.text).join('');
  if (value === null || value === undefined) return '';
  return escape(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, s, i) => out + render(values[i - 1]) + s));
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2327; }
  a.button { display: inline-block; padding: .5rem 1rem; background: #2271b1; color: #fff; border-radius: 4px; text-decoration: none; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #dcdcde; }
  td.price { text-align: right; white-space: nowrap; }
  .muted { color: #646970; }
`;

export function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Connect app</title>
        <style>
          ${new Html(STYLE)}
        </style>
      </head>
      <body>
        <header><a href="/">Connect app</a></header>
        <main>${body}</main>
      </body>
    </html> `.text;
}
