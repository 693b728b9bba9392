/**
 * The e-mails' own escaping template: the pages' (pages/html.ts) sits above this area. Every
 * interpolated value is escaped for text and quoted attributes, except nested `markup` fragments
 * (and lists of them).
 */
export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(value: unknown): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escape(String(value));
}

export function markup(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Markup(out);
}
