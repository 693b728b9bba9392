import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

const refused = (env: NodeJS.ProcessEnv, message: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => error instanceof ConfigError && message.test(error.message),
  );

test('without IMAGE_STORAGE_URL image files stay in the data folder', () => {
  assert.deepEqual(loadConfig({}).imageStorage, { kind: 'folder' });
});

test('IMAGE_STORAGE_URL s3://bucket/prefix with an endpoint, a region and path-style addressing', () => {
  assert.deepEqual(
    loadConfig({
      IMAGE_STORAGE_URL: 's3://shop-images/emporium/prod/',
      IMAGE_STORAGE_ENDPOINT: 'http://127.0.0.1:9000/',
      IMAGE_STORAGE_REGION: 'eu-west-3',
      IMAGE_STORAGE_FORCE_PATH_STYLE: 'true',
    }).imageStorage,
    {
      kind: 's3',
      bucket: 'shop-images',
      prefix: 'emporium/prod/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-3',
      forcePathStyle: true,
    },
  );
  const aws = loadConfig({ IMAGE_STORAGE_URL: 's3://shop-images', AWS_REGION: 'us-west-2' }).imageStorage;
  assert.deepEqual(aws, {
    kind: 's3',
    bucket: 'shop-images',
    prefix: '',
    endpoint: undefined,
    region: 'us-west-2',
    forcePathStyle: false,
  });
});

test('a malformed or incomplete image storage setting stops start-up with one line naming it', () => {
  for (const url of [
    'https://shop-images',
    's3://',
    's3://Shop_Images/x',
    's3://ab',
    's3://shop-images/../x',
  ]) {
    refused({ IMAGE_STORAGE_URL: url, AWS_REGION: 'us-east-1' }, /^IMAGE_STORAGE_URL/);
  }
  refused({ IMAGE_STORAGE_URL: 's3://shop-images' }, /^IMAGE_STORAGE_URL on AWS needs IMAGE_STORAGE_REGION/);
  refused(
    { IMAGE_STORAGE_URL: 's3://shop-images', IMAGE_STORAGE_ENDPOINT: 'minio:9000' },
    /^IMAGE_STORAGE_ENDPOINT must be an absolute http\(s\) URL/,
  );
  refused(
    { IMAGE_STORAGE_URL: 's3://shop-images', AWS_REGION: 'us-east-1', IMAGE_STORAGE_FORCE_PATH_STYLE: 'yes' },
    /^IMAGE_STORAGE_FORCE_PATH_STYLE must be true or false/,
  );
  refused(
    { IMAGE_STORAGE_ENDPOINT: 'http://127.0.0.1:9000' },
    /^IMAGE_STORAGE_ENDPOINT is set but IMAGE_STORAGE_URL is not/,
  );
});
