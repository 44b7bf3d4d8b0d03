import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDuration } from '../../src/config/duration.js';

test('single units: 90s, 10m, 6h, 2d', () => {
  assert.is(parseDuration('90s'), 90_000);
  assert.is(parseDuration('10m'), 600_000);
  assert.is(parseDuration('6h'), 21_600_000);
  assert.is(parseDuration('2d'), 172_800_000);
  assert.is(parseDuration('0s'), 0);
});

test('combinations add up, largest unit first: 1h30m, 2d12h, 1d2h3m4s', () => {
  assert.is(parseDuration('1h30m'), 5_400_000);
  assert.is(parseDuration('2d12h'), 216_000_000);
  assert.is(parseDuration('1d2h3m4s'), 86_400_000 + 7_200_000 + 180_000 + 4_000);
});

test('anything else is not a duration', () => {
  for (const bad of ['', '10', 'm', '10 m', '1.5h', '30m1h', '1h1h', '10ms', '-5m', '5M', ' 5m', 'forever']) {
    assert.is(parseDuration(bad), null, bad);
  }
});

test.run();
