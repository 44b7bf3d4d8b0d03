import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acquire, createRouterState, pickUpstream, release, servableModels, swapTable, usageOf } from '../../src/router/table.js';

function stateAt(ms: { now: number }) {
  return createRouterState(() => ms.now);
}

/** A table of these models' replica ids, each at http://<id>:1, with `routing` when given. */
function table(models: Record<string, string[]>, routing?: Table['routing']): Table {
  const byModel = Object.fromEntries(Object.entries(models).map(([m, ids]) => [m, ids.map((replica) => ({ replica, url: `http://${replica}:1` }))]));
  return { version: 1, models: byModel, ...(routing ? { routing } : {}) };
}
type Table = Parameters<typeof swapTable>[1];

const lift = (n: number) => ({
  version: 1 as const,
  models: { m: ['a', 'b', 'c'].slice(0, n).map((r) => ({ replica: r, url: `http://${r}.example:8000` })) },
  routing: { m: 'least-inflight' as const },
});

test('least-inflight: least in flight wins; equally busy replicas rotate', () => {
  const clock = { now: 1000 };
  const s = stateAt(clock);
  swapTable(s, lift(3));
  const route = s.models.get('m')!;
  const order = [1, 2, 3, 4].map(() => pickUpstream(route, null, null)!.replica);
  assert.equal(order, ['a', 'b', 'c', 'a']);
  const [a, b] = route.upstreams;
  acquire(s, a!);
  acquire(s, b!);
  assert.is(pickUpstream(route, null, null)!.replica, 'c');
  assert.is(pickUpstream(route, null, route.upstreams[2]!)!.replica, 'a', 'excluding c, the tie a/b rotates from the cursor');
  release(a!, false);
  release(b!, false);
});

test('least-inflight ignores the key: a keyed request still goes to the least busy replica', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, lift(2));
  const route = s.models.get('m')!;
  acquire(s, route.upstreams[0]!);
  assert.equal(
    [1, 2, 3].map(() => pickUpstream(route, 12345, null)!.replica),
    ['b', 'b', 'b'],
  );
});

test('a table without `routing` routes every model by prefix', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, table({ m: ['a'], n: [] }));
  assert.equal([s.models.get('m')!.mode, s.models.get('n')!.mode], ['prefix', 'prefix']);
});

test('a swap keeps the in-flight count of a replica whose id and URL are unchanged, and a replica id keeps its count across a new URL', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, table({ m: ['a'] }));
  const a = s.models.get('m')!.upstreams[0]!;
  acquire(s, a);
  swapTable(s, table({ m: ['a', 'b'] }, { m: 'least-inflight' }));
  assert.is(s.models.get('m')!.upstreams[0], a);
  assert.is(pickUpstream(s.models.get('m')!, null, null)!.replica, 'b');
  swapTable(s, { version: 1, models: { m: [{ replica: 'a', url: 'http://a:2' }] } });
  const moved = s.models.get('m')!.upstreams[0]!;
  assert.is.not(moved, a, 'a new URL is a new upstream (new connections)');
  assert.is(moved.cell.inFlight, 1, 'the replica id still has its request in flight');
});

test('usage: newest use wins, never-used replicas are absent from lastUsed and served, keys sorted, startedAt is creation time', () => {
  const clock = { now: Date.parse('2026-11-29T08:00:00Z') };
  const s = stateAt(clock);
  swapTable(s, table({ m: ['z', 'y'], n: ['x'] }));
  const [z, y] = s.models.get('m')!.upstreams;
  clock.now += 5000;
  acquire(s, z!);
  clock.now += 5000;
  acquire(s, y!);
  clock.now += 5000;
  acquire(s, z!);
  release(z!, false);
  release(y!, true);
  assert.equal(usageOf(s), {
    version: 1,
    startedAt: '2026-11-29T08:00:00.000Z',
    lastUsed: { y: '2026-11-29T08:00:10.000Z', z: '2026-11-29T08:00:15.000Z' },
    inflight: { x: 0, y: 0, z: 1 },
    served: { y: { requests: 1, errors: 1 }, z: { requests: 1, errors: 0 } },
    ejected: {},
    waiting: {},
  });
  assert.equal(Object.keys(usageOf(s).lastUsed), ['y', 'z']);
});

test('usage: a replica gone from the table is still reported in flight until its last request ends, then only in served', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, { version: 1, models: { m: [{ replica: 'old', url: 'http://o:1' }] } });
  const old = s.models.get('m')!.upstreams[0]!;
  acquire(s, old);
  acquire(s, old);
  swapTable(s, { version: 1, models: { m: [{ replica: 'new', url: 'http://n:1' }] } });
  assert.equal(usageOf(s).inflight, { new: 0, old: 2 });
  release(old, false);
  assert.equal(usageOf(s).inflight, { new: 0, old: 1 });
  release(old, false);
  assert.equal(usageOf(s).inflight, { new: 0 });
  assert.equal(usageOf(s).served, { old: { requests: 2, errors: 0 } });
});

test('a swap hands the upstreams it dropped to onDropped, once, and keeps the ones that stayed', () => {
  const s = stateAt({ now: 1 });
  const dropped: string[][] = [];
  s.onDropped = (gone) => dropped.push(gone.map((u) => u.replica));
  swapTable(s, table({ m: ['a', 'b'] }));
  swapTable(s, table({ m: ['b', 'c'] }));
  swapTable(s, table({ m: ['b', 'c'] }));
  assert.equal(dropped, [['a']]);
});

test('servable models are those with at least one replica, sorted; an upstream keeps its URL path as a base', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, { version: 1, models: { b: [{ replica: 'b-0', url: 'http://b:1' }], a: [{ replica: 'a-0', url: 'http://[::1]:8000/base/' }], none: [] } });
  assert.equal(servableModels(s), ['a', 'b']);
  const a = s.models.get('a')!.upstreams[0]!;
  assert.equal([a.origin, a.basePath], ['http://[::1]:8000', '/base']);
});

test.run();
