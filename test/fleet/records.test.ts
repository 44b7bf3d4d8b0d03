// Placements of record and the inventory bound as pure functions
// (src/fleet/records.ts, inventory.ts; docs/safety.md#records-over-reports,
// docs/placement.md#inventory), and the tick's adoption of write-ahead intents.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundedReport, nextInventory } from '../../src/fleet/inventory.js';
import { matchesRecord, seedFromSnapshot, startRecord, withStarts } from '../../src/fleet/records.js';
import { adoptIntents, seedState } from '../../src/tick/state.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { gpus, replica, report, snapshot, up } from '../fixtures/index.js';

const start = { replica: 'm-0', model: 'm', port: 8001, placement: [{ node: 'a', gpus: [1, 0] }] };

test('a start makes its record: the nodes, GPUs (sorted) and port llmgw sent, starting', () => {
  assert.equal(startRecord(start), { model: 'm', state: 'starting', ranks: [{ node: 'a', rank: 0, gpus: [0, 1] }], port: 8001 });
  assert.equal(withStarts({}, [{ op: 'start', weights: 'none', reason: 'r', ...start }]), { 'm-0': startRecord(start) });
  // No records kept (seeding from reports): a projection seeds them the same way, so none is added here.
  assert.is(withStarts(undefined, [{ op: 'start', weights: 'none', reason: 'r', ...start }]), undefined);
});

test('a report matches a record only with the same node, rank, GPUs and port', () => {
  const rec = startRecord(start);
  assert.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [0, 1], port: 8001 }]));
  assert.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [1, 0], port: null }]), 'a report naming no port');
  assert.not.ok(matchesRecord(rec, [{ node: 'b', rank: 0, gpus: [0, 1], port: 8001 }]));
  assert.not.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [0, 2], port: 8001 }]));
  assert.not.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [0, 1], port: 9999 }]));
  // A Slurm job: the node and the count are llmgw's, the indices Slurm chose.
  assert.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [4, 6], port: 8001, slurmJob: '17' }]));
  assert.not.ok(matchesRecord(rec, [{ node: 'a', rank: 0, gpus: [4], port: 8001, slurmJob: '17' }]), 'another count');
  assert.not.ok(matchesRecord(rec, [{ node: 'b', rank: 0, gpus: [4, 6], port: 8001, slurmJob: '17' }]), 'another node');
  assert.not.ok(
    matchesRecord(rec, [
      { node: 'a', rank: 0, gpus: [0, 1], port: 8001 },
      { node: 'b', rank: 1, gpus: [0], port: 8001 },
    ]),
  );
});

const snap = (): Snapshot => snapshot([up('a', report(gpus(2), [replica('m-0', [0]), replica('m-1', [1])])), up('b', report(gpus(1), [replica('m-0', [0])]))]);

test('seeding from the committed snapshot: every id once (a copy in two places by the fixed preference), none without a snapshot', () => {
  const seeded = seedFromSnapshot(snap());
  assert.equal(Object.keys(seeded), ['m-0', 'm-1']);
  assert.equal(
    seeded['m-0']!.ranks.map((k) => k.node),
    ['a'],
  );
  assert.equal(seedFromSnapshot(null), {});
});

test('seedState seeds only what state.json lacks: kept records are never replaced by a snapshot', () => {
  const seeded = seedState(emptyState(), snap());
  assert.equal(Object.keys(seeded.placements!), ['m-0', 'm-1']);
  assert.equal(seeded.inventory, { a: 2, b: 1 });
  const kept = { ...emptyState(), placements: {}, inventory: { a: 8 } };
  assert.equal(seedState(kept, snap()), kept);
  assert.equal(seedState(emptyState(), null).placements, {});
});

test('adoptIntents: an intent is a record once a node reports exactly it, and only when no record names that id', () => {
  const state = { ...emptyState(), placements: {} };
  const obs = (gpusOf: number[], port: number) => snapshot([up('a', report(gpus(2), [replica('m-0', gpusOf, { port })]))]);
  assert.equal(Object.keys(adoptIntents(state, [start], obs([0, 1], 8001)).placements!), ['m-0']);
  assert.equal(adoptIntents(state, [start], obs([0], 8001)), state, 'other GPUs: not what llmgw started');
  const inJob = snapshot([up('a', report(gpus(8), [replica('m-0', [5, 7], { port: 8001, slurmJob: '42' })]))]);
  assert.equal(Object.keys(adoptIntents(state, [start], inJob).placements!), ['m-0'], 'a Slurm job: Slurm picked the indices');
  assert.equal(adoptIntents(state, [start], obs([0, 1], 9000)), state, 'another port');
  assert.equal(adoptIntents(state, [start], snapshot([up('a', report(gpus(2), []))])), state, 'not reported: nothing to adopt');
  const recorded = { ...emptyState(), placements: { 'm-0': { model: 'm', state: 'running' as const, ranks: [{ node: 'b', rank: 0, gpus: [0] }] } } };
  assert.equal(adoptIntents(recorded, [start], obs([0, 1], 8001)), recorded, 'a record stands over an intent');
});

test('adoptIntents: an intent older than the committed snapshot (less 5 minutes of clock slack) was seen by a tick that committed since: not adopted', () => {
  const state = { ...emptyState(), placements: {} };
  const obs = snapshot([up('a', report(gpus(2), [replica('m-0', [0, 1], { port: 8001 })]))]);
  const at = (iso: string) => [{ ...start, at: iso }];
  const committed = '2026-11-29T08:00:00Z';
  assert.equal(Object.keys(adoptIntents(state, at('2026-11-29T08:00:30Z'), obs, committed).placements!), ['m-0'], 'written after it');
  assert.equal(Object.keys(adoptIntents(state, at('2026-11-29T07:56:00Z'), obs, committed).placements!), ['m-0'], 'within the slack');
  assert.equal(adoptIntents(state, at('2026-11-29T07:50:00Z'), obs, committed), state, 'stale');
  assert.equal(adoptIntents(state, [start], obs, committed), state, 'an intent of unknown time, against a commit');
});

test('the inventory bound: the first N GPUs by index when a report lists more; a report within it is as it is', () => {
  const r = report(gpus(4), []);
  const shuffled = { ...r, gpus: [...r.gpus].reverse() };
  const bounded = boundedReport(shuffled, 2, undefined);
  assert.equal(
    bounded.report!.gpus.map((g) => g.index),
    [0, 1],
  );
  assert.equal(bounded.bound, { reported: 4, believed: 2, source: 'declared' });
  assert.equal(boundedReport(r, undefined, 3).bound, { reported: 4, believed: 3, source: 'best-known' });
  assert.is(boundedReport(r, 8, 2).bound?.source, undefined, 'a declaration wins over the best known');
  assert.is(boundedReport(r, undefined, undefined).report, r, 'nothing known: believed');
  assert.is(boundedReport(null, 2, 2).report, null);
});

test('the best-known inventory: the first report sets it, a larger one does not raise it, a declaration caps it, nodes gone are dropped', () => {
  const nodes = [{ name: 'a' }, { name: 'b', gpus: 4 }];
  const counts: Record<string, number> = { a: 8, b: 8, gone: 8 };
  const reported = (n: string) => counts[n];
  assert.equal(nextInventory(undefined, nodes, reported), { a: 8, b: 4 });
  counts['a'] = 1024;
  assert.equal(nextInventory({ a: 8, b: 4, gone: 8 }, nodes, reported), { a: 8, b: 4 });
  counts['a'] = 6;
  assert.equal(nextInventory({ a: 8 }, nodes, reported), { a: 8, b: 4 }, 'the most believed before is kept');
  assert.equal(
    nextInventory({ b: 900 }, nodes, () => undefined),
    { b: 4 },
  );
});

test.run();
