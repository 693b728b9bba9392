import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GONE, VersionedCache } from '../src/shared/versioned-cache.ts';

const cache = (maxBytes = 1000, trusted = true) =>
  new VersionedCache<string>(
    maxBytes,
    (value) => value.length,
    () => trusted,
  );

describe('VersionedCache', () => {
  test('serves a value only at its version, and never an older one over a newer', () => {
    const c = cache();
    c.set('a', 2, 'v2', c.generation);
    assert.equal(c.at('a', 2), 'v2');
    assert.equal(c.at('a', 1), undefined);
    c.set('a', 1, 'v1', c.generation);
    assert.equal(c.at('a', 2), 'v2');
    assert.equal(c.latest('a'), 'v2');
  });

  test('answers latest() only while trusted, but at() always', () => {
    const c = cache(1000, false);
    c.set('a', 1, 'v1', c.generation);
    assert.equal(c.latest('a'), undefined);
    assert.equal(c.at('a', 1), 'v1');
  });

  test('stays within its byte budget, evicting the least recently used', () => {
    const c = cache(30);
    for (const key of ['a', 'b', 'c']) c.set(key, 1, 'x'.repeat(10), c.generation);
    assert.ok(c.at('a', 1)); // a is now the most recent
    c.set('d', 1, 'x'.repeat(10), c.generation);
    assert.equal(c.at('b', 1), undefined);
    assert.ok(c.at('a', 1) && c.at('c', 1) && c.at('d', 1));
  });

  test('an entry read often stays while many others come and go', () => {
    const c = cache(100); // ten entries of 10
    c.set('hot', 1, 'x'.repeat(10), c.generation);
    for (let i = 0; i < 100; i++) {
      c.set(`cold${i}`, 1, 'x'.repeat(10), c.generation);
      assert.ok(c.latest('hot'), `evicted after ${i + 1} others`);
    }
    assert.equal(c.at('cold0', 1), undefined);
    assert.ok(c.at('cold99', 1));
  });

  test('an invalidation hides the old value and refuses it from a read that raced the change', () => {
    const c = cache();
    c.set('a', 1, 'v1', c.generation);
    const generation = c.generation; // a read starts and sees version 1
    c.invalidate('a', 2); // version 2 commits and is announced
    assert.equal(c.latest('a'), undefined);
    c.set('a', 1, 'v1', generation); // the racing read stores what it saw
    assert.equal(c.latest('a'), undefined);
    c.set('a', 2, 'v2', generation);
    assert.equal(c.latest('a'), 'v2');
  });

  test('a deleted key is never cached again', () => {
    const c = cache();
    c.set('a', 5, 'v5', c.generation);
    c.invalidate('a', GONE);
    c.set('a', 6, 'v6', c.generation);
    assert.equal(c.latest('a'), undefined);
  });

  test('a read that began before a tombstone was evicted stores nothing', () => {
    const c = cache(100);
    const generation = c.generation;
    c.invalidate('a', 2);
    for (let i = 0; i < 5; i++) c.set(`filler${i}`, 1, 'x'.repeat(40), c.generation); // evicts the tombstone
    c.set('a', 1, 'v1', generation);
    assert.equal(c.latest('a'), undefined);
  });

  test('reset() forgets everything and refuses reads begun before it', () => {
    const c = cache();
    c.set('a', 1, 'v1', c.generation);
    const generation = c.generation;
    c.reset();
    assert.equal(c.latest('a'), undefined);
    c.set('b', 1, 'v1', generation);
    assert.equal(c.at('b', 1), undefined);
  });
});
