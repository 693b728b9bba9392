import type { FastifyRequest } from 'fastify';
import { html, type Html } from './html.ts';

/** Form fields as @fastify/formbody parses them: a repeated field is a list. */
export type Form = Record<string, string | string[] | undefined>;

/** A single text field of a form; a repeated or missing one is empty. */
export function field(form: unknown, name: string): string {
  const value = (form as Form | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The name of the hidden field that carries a form's CSRF token, on every page of both areas. */
export const CSRF_FIELD = 'csrf';

/** The hidden CSRF field every form starts with. */
export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/** The CSRF token a posted form carries, if any; each area checks it against its own token. */
export function presentedCsrf(request: FastifyRequest): unknown {
  return (request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
}
