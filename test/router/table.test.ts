import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acquire, createRouterState, pickUpstream, release, servableModels, swapTable, usageOf } from '../../src/router/table.js';

function stateAt(ms: { now: number }) {
  return createRouterState(() => ms.now);
}

test('pick: least in flight wins; equally busy replicas rotate', () => {
  const clock = { now: 1000 };
  const s = stateAt(clock);
  swapTable(s, { version: 1, models: { m: ['a', 'b', 'c'].map((r) => ({ replica: r, url: `http://${r}.example:8000` })) } });
  const route = s.models.get('m')!;
  const order = [1, 2, 3, 4].map(() => pickUpstream(route, null)!.replica);
  assert.equal(order, ['a', 'b', 'c', 'a']);
  const [a, b] = route.upstreams;
  acquire(s, a!);
  acquire(s, b!);
  assert.is(pickUpstream(route, null)!.replica, 'c');
  assert.is(pickUpstream(route, route.upstreams[2]!)!.replica, 'a', 'excluding c, the tie a/b rotates from the cursor');
  release(a!);
  release(b!);
});

test('a swap keeps the in-flight count of a replica whose id and URL are unchanged', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, { version: 1, models: { m: [{ replica: 'a', url: 'http://a:1' }] } });
  const a = s.models.get('m')!.upstreams[0]!;
  acquire(s, a);
  swapTable(s, { version: 1, models: { m: [{ replica: 'a', url: 'http://a:1' }, { replica: 'b', url: 'http://b:1' }] } });
  assert.is(s.models.get('m')!.upstreams[0], a);
  assert.is(pickUpstream(s.models.get('m')!, null)!.replica, 'b');
  swapTable(s, { version: 1, models: { m: [{ replica: 'a', url: 'http://a:2' }] } });
  assert.is(s.models.get('m')!.upstreams[0]!.inFlight, 0, 'a new URL is a new upstream');
});

test('usage: newest use wins, never-used replicas are absent, keys sorted, startedAt is creation time', () => {
  const clock = { now: Date.parse('2026-11-29T08:00:00Z') };
  const s = stateAt(clock);
  swapTable(s, { version: 1, models: { m: [{ replica: 'z', url: 'http://z:1' }, { replica: 'y', url: 'http://y:1' }], n: [{ replica: 'x', url: 'http://x:1' }] } });
  const [z, y] = s.models.get('m')!.upstreams;
  clock.now += 5000;
  acquire(s, z!);
  clock.now += 5000;
  acquire(s, y!);
  clock.now += 5000;
  acquire(s, z!);
  assert.equal(usageOf(s), {
    version: 1,
    startedAt: '2026-11-29T08:00:00.000Z',
    lastUsed: { y: '2026-11-29T08:00:10.000Z', z: '2026-11-29T08:00:15.000Z' },
  });
  assert.equal(Object.keys(usageOf(s).lastUsed), ['y', 'z']);
});

test('servable models are those with at least one replica, sorted', () => {
  const s = stateAt({ now: 1 });
  swapTable(s, { version: 1, models: { b: [{ replica: 'b-0', url: 'http://b:1' }], a: [{ replica: 'a-0', url: 'http://[::1]:8000/base/' }], none: [] } });
  assert.equal(servableModels(s), ['a', 'b']);
  const a = s.models.get('a')!.upstreams[0]!;
  assert.equal([a.hostname, a.port, a.basePath, a.hostHeader], ['::1', 8000, '/base', '[::1]:8000']);
});

test.run();
