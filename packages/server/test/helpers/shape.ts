import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';

/** Asserts a response body has exactly the documented shape of its route's schema. */
export function assertShape(schema: TSchema, body: unknown): void {
  const errors = [...Value.Errors(schema, body)];
  assert.deepEqual(errors, [], `response does not match its schema: ${JSON.stringify(errors.slice(0, 3))}`);
}

export function assertError(
  res: { statusCode: number; json(): unknown },
  status: number,
  type: string,
  subtype: string | null,
  message?: RegExp,
) {
  const body = res.json() as Record<string, unknown>;
  assert.equal(res.statusCode, status, JSON.stringify(body));
  assert.deepEqual(Object.keys(body).sort(), ['contextId', 'details', 'message', 'subtype', 'type']);
  assert.equal(body.type, type);
  assert.equal(body.subtype, subtype);
  assert.equal(body.details, null);
  assert.match(String(body.contextId), /^[A-Za-z0-9_-]{6,}$/);
  if (message) assert.match(String(body.message), message);
}
