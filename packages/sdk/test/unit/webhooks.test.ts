import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { verifyWebhook } from '../../src/index.ts';

const secret = randomBytes(32).toString('hex');
const body = JSON.stringify({
  id: 'n1',
  topic: 'extension.uninstall',
  data: { clientId: 'c1' },
  note: 'café',
});
/** What the server sends: lower-case hex HMAC-SHA256 of the raw body, keyed with the hex-decoded secret. */
const sign = (raw: string | Buffer, key = secret) =>
  createHmac('sha256', Buffer.from(key, 'hex')).update(raw).digest('hex');

test('a genuine signature verifies, on a string, bytes or an ArrayBuffer', async () => {
  const signature = sign(body);
  assert.equal(await verifyWebhook(body, signature, secret), true);
  const bytes = Buffer.from(body);
  assert.equal(await verifyWebhook(bytes, signature, secret), true);
  assert.equal(await verifyWebhook(new Uint8Array(bytes).buffer, signature, secret), true);
});

test('a changed body or a changed signature does not', async () => {
  const signature = sign(body);
  assert.equal(await verifyWebhook(`${body} `, signature, secret), false);
  assert.equal(
    await verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), signature, secret),
    false,
    're-serialized',
  );
  const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
  assert.equal(await verifyWebhook(body, flipped, secret), false);
  assert.equal(
    await verifyWebhook(body, sign(body, randomBytes(32).toString('hex')), secret),
    false,
    'another secret',
  );
  // Keyed with the secret's text instead of its bytes: the mistake the hex decoding is there to avoid.
  assert.equal(
    await verifyWebhook(body, createHmac('sha256', secret).update(body).digest('hex'), secret),
    false,
  );
});

test('a signature of the wrong length, not hex, or missing is false, not an exception', async () => {
  const signature = sign(body);
  for (const given of [
    signature.slice(0, 62),
    `${signature}00`,
    '',
    'zz'.repeat(32),
    `sha256=${signature}`,
    null,
    undefined,
  ]) {
    assert.equal(await verifyWebhook(body, given, secret), false, String(given));
  }
});

test('a secret that is not hex is a programming error', async () => {
  await assert.rejects(verifyWebhook(body, sign(body), 'not hex'), TypeError);
});

test('rotated secret: the old one stops verifying new notifications; both can be given around the rotation', async () => {
  const rotated = randomBytes(32).toString('hex');
  const signedNew = sign(body, rotated);
  assert.equal(await verifyWebhook(body, signedNew, secret), false);
  assert.equal(await verifyWebhook(body, signedNew, rotated), true);
  assert.equal(await verifyWebhook(body, signedNew, [secret, rotated]), true);
  assert.equal(await verifyWebhook(body, sign(body), [secret, rotated]), true);
  assert.equal(
    await verifyWebhook(body, sign(body, randomBytes(32).toString('hex')), [secret, rotated]),
    false,
  );
});
