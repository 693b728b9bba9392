import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BODY_LIMIT_BYTES, storedBody } from '../src/api-log/redact.ts';

/** How the request log keeps a body (api-log/redact.ts), apart from any request. */

const TOKEN = 'emp_at_0123456789abcdefghijklmnopqrstuvwxyzABCDEF';

test('a long answer is cut to 16 KB and its secrets are redacted, even one the cut splits', () => {
  const filler = JSON.stringify({
    products: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `mug ${i}` })),
  });
  const before = filler.slice(0, BODY_LIMIT_BYTES - 30);
  // A secret whose value runs past the 16 KB mark: the kept part must not hold its start either.
  const long = `${before.slice(0, -1)},"access_token":"${TOKEN}","card":"4242 4242 4242 4242"${filler.slice(before.length)}`;
  const stored = storedBody(long);
  assert.equal(stored.cut, true);
  assert.ok(Buffer.byteLength(stored.text!) <= BODY_LIMIT_BYTES);
  assert.ok(!stored.text!.includes('emp_at_'), stored.text!.slice(-120));
  assert.match(stored.text!, /"access_token":"\[redacted\]"/);
});

test('a long text with secrets early on keeps none of them', () => {
  const body = JSON.stringify({
    client_secret: 'emp_cs_very-secret-value',
    password: 'correct horse battery staple',
    cvc: 123,
    card: '4242424242424242',
    rest: 'x'.repeat(200_000),
  });
  const stored = storedBody(Buffer.from(body));
  assert.equal(stored.cut, true);
  for (const secret of ['emp_cs_very-secret-value', 'correct horse', '4242424242424242', ':123']) {
    assert.ok(!stored.text!.includes(secret), secret);
  }
});
