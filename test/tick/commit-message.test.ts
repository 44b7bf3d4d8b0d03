// The commit message's rules (docs/status.md#commits), one per test,
// on hand-made fleets: the first line names what a reader looks for, the body
// lists the actions. test/tick/commit-story.test.ts holds a whole sequence.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyOutcome, type ActionResult } from '../../src/apply/outcome.js';
import { actionLines, byModel, commitMessage, NO_NEWS, nodeNews, quarantineNews, tickNews } from '../../src/tick/commit-message.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { Plan } from '../../src/types/plan.js';
import type { NodeObservation, Snapshot, UnreachableReason } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

const report = { version: 1 as const, gpus: [], replicas: [], storage: [], warnings: [] };
const base = { configInvalid: false, dirtyConfig: [], blocked: null, outcome: emptyOutcome() };

function fleetOf(nodes: { name: string; condition?: 'reachable' | 'unreachable' | 'lost'; reason?: UnreachableReason }[], replicas: unknown[] = []): Fleet {
  return { nodes: nodes.map((n) => ({ condition: 'reachable', reason: null, ...n })), replicas } as unknown as Fleet;
}
function snap(nodes: NodeObservation[]): Snapshot {
  return { version: 1, observedAt: '2026-11-29T08:00:00Z', nodes, routers: [] };
}
const upNode = (name: string): NodeObservation => ({ name, reachable: true, report });
const downNode = (name: string, reason: UnreachableReason): NodeObservation => ({
  name,
  reachable: false,
  error: 'x',
  reason,
  unreachableSince: '2026-11-29T07:59:00Z',
  lastReport: report,
});

test('a node that stops answering is named with its cause class; one that keeps failing the same way is not news', () => {
  const now = fleetOf([{ name: 'gpu-3', condition: 'unreachable', reason: 'refused' }, { name: 'gpu-4' }]);
  assert.equal(nodeNews(now, snap([upNode('gpu-3'), upNode('gpu-4')]), []), ['gpu-3 unreachable (refused)']);
  assert.equal(nodeNews(now, snap([downNode('gpu-3', 'refused'), upNode('gpu-4')]), []), []);
});

test('a cause that changes (refused to network) is a change, and says what it was', () => {
  const now = fleetOf([{ name: 'gpu-3', condition: 'unreachable', reason: 'network' }]);
  assert.equal(nodeNews(now, snap([downNode('gpu-3', 'refused')]), []), ['gpu-3 unreachable (network, was refused)']);
});

test('lost and back come from the events and the last snapshot, each node once, grouped as a hostlist', () => {
  const now = fleetOf([
    { name: 'gpu-a03', condition: 'lost', reason: 'refused' },
    { name: 'gpu-a04', condition: 'lost', reason: 'refused' },
    { name: 'gpu-b01' },
  ]);
  const events = [
    { event: 'node.lost' as const, subject: 'gpu-a03' },
    { event: 'node.lost' as const, subject: 'gpu-a04' },
    { event: 'node.recovered' as const, subject: 'gpu-b01' },
  ];
  const before = snap([downNode('gpu-a03', 'refused'), downNode('gpu-a04', 'refused'), downNode('gpu-b01', 'timeout')]);
  assert.equal(nodeNews(now, before, events), ['gpu-a[03-04] lost', 'gpu-b01 back']);
});

test('a GPU quarantined or released since the last commit is named with its node, index and Xid', () => {
  const q = { node: 'gpu-2', index: 3, code: 79, reason: 'fell off the bus', since: '2026-11-29T07:00:00Z', until: '2026-11-30T07:00:00Z' };
  assert.equal(quarantineNews(emptyState(), { ...emptyState(), quarantine: { 'gpu-2:3': q } }), ['gpu-2[3] quarantined (Xid 79)']);
  assert.equal(quarantineNews({ ...emptyState(), quarantine: { 'gpu-2:3': q } }, emptyState()), ['gpu-2[3] out of quarantine']);
});

test('models are counted by name, at most three named', () => {
  assert.is(byModel(['q', 'm', 'm']), 'm ×2, q');
  assert.is(byModel(['a', 'b', 'c', 'd']), 'a, b, c and 1 more');
});

const result = (op: 'start' | 'stop', replica: string, extra: Partial<ActionResult> = {}): ActionResult => ({
  op,
  replica,
  model: replica.replace(/-\d+$/, ''),
  status: 'ok',
  nodes: ['gpu-b03'],
  ...extra,
});
const PLAN: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [
    { op: 'start', replica: 'm-2', model: 'm', port: 8000, placement: [{ node: 'gpu-b03', gpus: [4, 5, 6, 7] }], weights: 'node', reason: 'r' },
    {
      op: 'start',
      replica: 'ds-0',
      model: 'ds',
      port: 8001,
      placement: [
        { node: 'gpu-a01', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
        { node: 'gpu-a02', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
      ],
      weights: 'fabric',
      reason: 'r',
    },
    { op: 'stop', replica: 'q-0', model: 'q', placement: [{ node: 'gpu-b01', gpus: [0] }], reason: 'r', waitFor: [] },
    { op: 'stop', replica: 'o-1', model: 'o', placement: [{ node: 'gpu-b02', gpus: [1, 3] }], reason: 'r', waitFor: ['m-2'] },
  ],
  unplaceable: [],
};

test('the body lists each action of the apply on one line, with its nodes and GPU indices, and how it ended when not ok', () => {
  const outcome = {
    ...emptyOutcome(),
    results: [
      result('start', 'm-2'),
      result('start', 'ds-0', { status: 'failed', error: 'gpu-a02: no such file\nmore' }),
      result('stop', 'q-0', { phase: 'drain' }),
      result('stop', 'o-1', { status: 'deferred', waitingFor: ['m-2'] }),
    ],
  };
  assert.equal(actionLines(PLAN, outcome), [
    'start m-2 on gpu-b03 [4-7]',
    'start ds-0 on gpu-a01 [0-7], gpu-a02 [0-7] (failed: gpu-a02: no such file)',
    'drain q-0 on gpu-b01 [0]',
    'stop o-1 on gpu-b02 [1,3] (waiting for m-2)',
  ]);
});

test('the first line says what was applied by model; replicas started in place of ones on a lost node are moved', () => {
  const fleet = fleetOf([{ name: 'gpu-a03', condition: 'lost', reason: 'timeout' }], [{ id: 'm-0', model: 'm', lost: true, state: 'running' }]);
  const outcome = {
    ...emptyOutcome(),
    results: [result('start', 'm-2'), result('start', 'm-3'), result('stop', 'q-0'), result('stop', 'o-1', { phase: 'drain' })],
  };
  const news = tickNews({
    events: [{ event: 'node.lost', subject: 'gpu-a03' }],
    fleet,
    previous: snap([downNode('gpu-a03', 'timeout')]),
    committed: emptyState(),
    state: emptyState(),
    plan: PLAN,
    outcome,
    decisions: [],
  });
  const message = commitMessage('prod-eu', { ...base, outcome }, undefined, news);
  assert.is(message.split('\n')[0], 'llmgw: gpu-a03 lost; moved m, started m, stopped q, draining o (prod-eu)');
  assert.equal(message.split('\n').slice(1), [
    '',
    'start m-2 on gpu-b03 [4-7]',
    'start m-3 on gpu-b03',
    'stop q-0 on gpu-b01 [0]',
    'drain o-1 on gpu-b02 [1,3]',
  ]);
});

test('a scale or eviction leads the line, with its cause', () => {
  const news = { ...NO_NEWS, decisions: ['scale od 0→1 (12 waiting at rt-1)'], applied: ['started od'] };
  assert.is(commitMessage('t', base, undefined, news), 'llmgw: scale od 0→1 (12 waiting at rt-1); started od (t)');
});

test('without an action or event, replicas that became running are named; with nothing at all, where the replicas stand', () => {
  const fleet = fleetOf(
    [{ name: 'g1' }],
    [
      { id: 'm-0', model: 'm', lost: false, state: 'running' },
      { id: 'm-1', model: 'm', lost: false, state: 'running' },
      { id: 'q-0', model: 'q', lost: false, state: 'starting' },
    ],
  );
  const starting = { ...report, replicas: ['m-0', 'm-1', 'q-0'].map((id) => ({ id, model: 'm', gpus: [0], state: 'starting' as const })) };
  const news = tickNews({
    events: [],
    fleet,
    previous: snap([{ name: 'g1', reachable: true, report: starting }]),
    committed: emptyState(),
    state: emptyState(),
    plan: null,
    outcome: emptyOutcome(),
    decisions: [],
  });
  assert.is(commitMessage('t', base, { running: 2, starting: 1, failed: 0 }, news), 'llmgw: m ×2 running (t)');
  assert.is(commitMessage('t', base, { running: 2, starting: 1, failed: 0 }), 'llmgw: status: 2 running, 1 starting (t)');
  assert.is(commitMessage('t', base, { running: 0, starting: 0, failed: 0 }), 'llmgw: status: no replicas (t)');
});

test('a tick that applied nothing says why, after what happened', () => {
  const news = { ...NO_NEWS, nodes: ['gpu-a03 lost'] };
  assert.is(commitMessage('prod-eu', { ...base, blocked: 'x' }, undefined, news), 'llmgw: gpu-a03 lost; plan blocked, nothing applied (prod-eu)');
  assert.is(commitMessage('prod-eu', { ...base, dirtyConfig: ['models.yaml'] }), 'llmgw: uncommitted edits to models.yaml, nothing applied (prod-eu)');
  assert.is(commitMessage(null, { ...base, configInvalid: true }), 'llmgw: config invalid, nothing applied');
});

test.run();
