// The consistent-hash ring with bounded loads behind `routing: prefix`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildRing, LOAD_FACTOR, pickOnRing } from '../../src/router/ring.js';
import { hash32 } from '../../src/router/hash.js';
import { createRouterState, pickUpstream, swapTable, acquire } from '../../src/router/table.js';

const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `m-${i + from}`);
const keys = Array.from({ length: 20_000 }, (_, i) => hash32(`key ${i}`));

/** Each key's replica id on an idle ring. */
function owners(list: string[]): string[] {
  const ring = buildRing(list);
  const idle = new Int32Array(list.length);
  return keys.map((k) => list[pickOnRing(ring, k, idle)]!);
}

test('the same key always lands on the same replica, whatever order the table lists them in', () => {
  const list = ids(8);
  const a = owners(list);
  const b = owners([...list].reverse());
  assert.equal(a, owners(list));
  assert.equal(a, b);
});

test('the ring splits keys evenly: 8 replicas each own 12.5% ± 3 points of 20,000 keys', () => {
  const counts = new Map<string, number>();
  for (const o of owners(ids(8))) counts.set(o, (counts.get(o) ?? 0) + 1);
  assert.is(counts.size, 8);
  for (const [id, n] of counts) assert.ok(Math.abs(n / keys.length - 0.125) < 0.03, `${id} owns ${n}`);
});

test('a replica joining takes keys only from others, and only keys that now go to it move', () => {
  const before = owners(ids(8));
  const after = owners(ids(9));
  let moved = 0;
  before.forEach((o, i) => {
    if (o !== after[i]) {
      moved++;
      assert.is(after[i], 'm-8', `key ${i} moved from ${o} to ${after[i]}, not to the newcomer`);
    }
  });
  assert.ok(moved > keys.length * 0.07 && moved < keys.length * 0.16, `about 1/9 of the keys move (${moved})`);
});

test('a replica leaving moves only its own keys; every other key stays where it was', () => {
  const before = owners(ids(8));
  const list = ids(8).filter((id) => id !== 'm-3');
  const after = owners(list);
  before.forEach((o, i) => {
    if (o !== 'm-3') assert.is(after[i], o, `key ${i} of ${o} stayed`);
    else assert.is.not(after[i], 'm-3');
  });
});

test('bounded load: a key whose replica would go above 1.25x the mean goes to the next replica on the ring, and back home when there is room', () => {
  const list = ids(4);
  const ring = buildRing(list);
  const key = keys[0]!;
  const home = pickOnRing(ring, key, new Int32Array(4));
  // 2 in flight, all at home: the bound after this request is ceil(1.25 * 3 / 4) = 1.
  const loads = new Int32Array(4);
  loads[home] = 2;
  const next = pickOnRing(ring, key, loads);
  assert.is.not(next, home);
  // The spill is deterministic: the same next replica every time, the first one clockwise.
  assert.is(pickOnRing(ring, key, loads), next);
  // 8 in flight, home holds 2 of them: the bound is ceil(1.25 * 9 / 4) = 3, so home takes it.
  loads.fill(2);
  assert.is(pickOnRing(ring, key, loads), home);
  loads[home] = 0;
  assert.is(pickOnRing(ring, key, loads), home, 'with room again, the key goes home');
});

test('bounded load: one key sent 1,000 times with nothing finishing never puts a replica above 1.25x the mean (rounded up to a whole request)', () => {
  const list = ids(8);
  const ring = buildRing(list);
  const loads = new Int32Array(8);
  const key = hash32('the one shared system prompt');
  for (let r = 1; r <= 1000; r++) {
    loads[pickOnRing(ring, key, loads)]!++;
    const max = Math.max(...loads);
    assert.ok(max <= Math.ceil((LOAD_FACTOR * r) / 8), `after ${r} requests the busiest holds ${max}`);
  }
  // A bound of 1.25x the mean needs at least 8 / 1.25 replicas to hold the load: the hot key is spread over them.
  assert.ok([...loads].filter((n) => n > 0).length >= Math.floor(8 / LOAD_FACTOR), `replicas used: ${[...loads].join(',')}`);
});

test('a retry excludes the replica that failed and walks on to the next one of the ring', () => {
  const list = ids(3);
  const ring = buildRing(list);
  const idle = new Int32Array(3);
  const home = pickOnRing(ring, keys[5]!, idle);
  const other = pickOnRing(ring, keys[5]!, idle, home);
  assert.is.not(other, home);
  assert.ok(other >= 0);
  assert.is(pickOnRing(buildRing(['only']), keys[5]!, new Int32Array(1), 0), -1, 'nothing left to retry on');
});

test('prefix mode through the table: keyed requests stick to one replica; unkeyed ones fall back to least in flight', () => {
  const s = createRouterState(() => 1);
  swapTable(s, { version: 1, models: { m: ids(4).map((r) => ({ replica: r, url: `http://${r}:1` })) }, routing: { m: 'prefix' } });
  const route = s.models.get('m')!;
  const home = pickUpstream(route, 42, null)!;
  assert.equal(
    [1, 2, 3].map(() => pickUpstream(route, 42, null)),
    [home, home, home],
  );
  acquire(s, route.upstreams[0]!);
  const unkeyed = pickUpstream(route, null, null)!;
  assert.is.not(unkeyed, route.upstreams[0]);
});

test.run();
