import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * The spec's change-wrapper `{ "present": true, "value": v }`, which the platform's update bodies
 * accept for every field, and again for the fields inside pricing and measurements
 * (platform-facts 5); `{ "present": false }` means "leave unchanged". Real clients send plain
 * values, so route schemas describe plain values and a wrapped body is unwrapped before it is
 * validated, at any depth: handlers only ever see plain values.
 */
function isWrapper(value: object): value is { present: boolean; value?: unknown } {
  const keys = Object.keys(value);
  const present = (value as { present?: unknown }).present;
  if (typeof present !== 'boolean' || !keys.every((k) => k === 'present' || k === 'value')) return false;
  // `{ present: true }` without a value is no change-wrapper; validation then names the field.
  return present === false || keys.includes('value');
}

const LEFT_OUT = Symbol('left out');

function unwrap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrap).filter((item) => item !== LEFT_OUT);
  if (value === null || typeof value !== 'object') return value;
  if (isWrapper(value)) return value.present ? unwrap(value.value) : LEFT_OUT;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const plain = unwrap(inner);
    if (plain !== LEFT_OUT) out[key] = plain;
  }
  return out;
}

/**
 * Unwraps the body of every route whose config says `changeWrappers: true`, before validation:
 * a preValidation hook of those routes alone (added as each is defined, first of the route's own,
 * so after the NUL check every route runs), so that other requests do not run it at all.
 */
export function registerChangeWrappers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.changeWrappers) return;
    route.preValidation = [unwrapBody, ...[route.preValidation ?? []].flat()];
  });
}

function unwrapBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body)) {
    request.body = unwrap(request.body);
  }
  done();
}
