import { html, type Html } from './html.ts';

/** A message block; `role=alert` so screen readers announce a form's error. */
export function notice(message: string | undefined, kind: 'error' | 'info' = 'error'): Html {
  if (!message) return html``;
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</p>`;
}
