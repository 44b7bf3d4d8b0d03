import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitCopies, type Part } from '../../src/fleet/duplicates.js';
import type { NodeCondition } from '../../src/types/fleet.js';
import type { ReplicaState } from '../../src/types/snapshot.js';

function part(node: string, rank = 0, o: { condition?: NodeCondition; state?: ReplicaState; startedAt?: string } = {}): Part {
  return {
    node: { name: node, condition: o.condition ?? 'reachable' },
    rep: { id: 'm-0', model: 'm', gpus: [0], state: o.state ?? 'running', rank, ...(o.startedAt ? { startedAt: o.startedAt } : {}) },
    rank,
  };
}
const names = (ps: Part[]) => ps.map((p) => `${p.rank}@${p.node.name}`);
const record = (...ranks: [string, number][]) => ({ model: 'm', state: 'running' as const, ranks: ranks.map(([node, rank]) => ({ node, rank, gpus: [0] })) });

test('an id in one place, multi-node included, is no duplicate', () => {
  const parts = [part('a', 0), part('b', 1)];
  assert.equal(splitCopies(parts, undefined), { kept: parts, extra: [] });
});

test('the same rank on two nodes: the copy on the node of record stays, whatever the other one looks like', () => {
  const parts = [part('a', 0, { state: 'starting', condition: 'unreachable' }), part('b', 0)];
  const { kept, extra } = splitCopies(parts, record(['a', 0]));
  assert.equal([names(kept), names(extra)], [['0@a'], ['0@b']]);
});

test('without a record: a node that answers, then a serving copy, then the first started, then the name', () => {
  assert.equal(names(splitCopies([part('a', 0, { condition: 'unreachable' }), part('b', 0)], undefined).kept), ['0@b']);
  assert.equal(names(splitCopies([part('a', 0, { state: 'starting' }), part('b', 0)], undefined).kept), ['0@b']);
  assert.equal(names(splitCopies([part('b', 0, { startedAt: '2026-11-29T08:00:00Z' }), part('a', 0, { startedAt: '2026-11-29T09:00:00Z' })], undefined).kept), [
    '0@b',
  ]);
  assert.equal(names(splitCopies([part('b', 0), part('a', 0)], undefined).kept), ['0@a']);
});

test('records over reports: with a record, every copy not where llmgw started it is a duplicate, whatever its startedAt says', () => {
  const forged = part('b', 0, { startedAt: '2020-01-01T00:00:00Z' });
  const legit = part('a', 0, { startedAt: '2026-11-29T09:00:00Z' });
  assert.equal([names(splitCopies([forged, legit], record(['a', 0])).kept), names(splitCopies([forged, legit], record(['a', 0])).extra)], [['0@a'], ['0@b']]);
  // A copy alone on another node is no replica of that id either: no preference falls back to it.
  assert.equal(names(splitCopies([part('b', 0), part('c', 0)], record(['z', 0])).kept), []);
  assert.equal(names(splitCopies([part('b', 0), part('c', 0)], record(['z', 0])).extra), ['0@b', '0@c']);
});

test('ranks beyond the record are duplicates; without a record more ranks are an older, larger spec (replaced, not split)', () => {
  const parts = [part('a', 0), part('b', 1), part('c', 2)];
  assert.equal(names(splitCopies(parts, record(['a', 0], ['b', 1])).extra), ['2@c']);
  assert.equal(splitCopies(parts, record(['a', 0], ['b', 1], ['c', 2])).extra, []);
  assert.equal(splitCopies(parts, undefined).extra, []);
});

test.run();
