import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, DEFAULT_SMTP_FROM, loadConfig } from '../src/config.ts';

test('SMTP_URL: smtp:// or smtps:// with a host, a user and a password if need be; anything else stops start-up without echoing it', () => {
  assert.equal(loadConfig({}).smtpUrl, undefined);
  for (const good of [
    'smtp://127.0.0.1:2525',
    'smtps://mailer:s3cret@mail.example.com:465',
    'smtp://mail.example.com',
  ]) {
    assert.equal(loadConfig({ SMTP_URL: good }).smtpUrl, good);
  }
  for (const bad of [
    'http://mail.example.com',
    'smtp://',
    'mail.example.com:25',
    'smtp://u:hunter2@h/path',
    'smtp://h?x=1',
  ]) {
    assert.throws(
      () => loadConfig({ SMTP_URL: bad }),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message.startsWith('SMTP_URL') &&
        !error.message.includes('hunter2'),
      bad,
    );
  }
});

test('SMTP_FROM: an e-mail address, a reserved one by default', () => {
  assert.equal(loadConfig({}).smtpFrom, DEFAULT_SMTP_FROM);
  assert.equal(loadConfig({ SMTP_FROM: 'shop@example.com' }).smtpFrom, 'shop@example.com');
  assert.throws(() => loadConfig({ SMTP_FROM: 'not an address' }), ConfigError);
});
