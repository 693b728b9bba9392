import type { FastifyRequest } from 'fastify';

/** A page that needs a signed-in owner was asked for without one (the error handler redirects). */
export class SignInRequired extends Error {}

export function ownerOf(request: FastifyRequest): { id: string; email: string } {
  if (!request.browser.owner) throw new SignInRequired();
  return request.browser.owner;
}
