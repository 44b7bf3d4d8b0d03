// What "Needs attention" says (docs/status.md): each kind of item's headline
// (its count, its singular or plural wording), the subjects it names and the
// page each subject links to, and the order of the items, most urgent first.
// Facts are set by hand on a quiet fleet's report and the list derived again,
// as a projection would.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize, withAttention, type StatusReport } from '../../src/status/index.js';
import type { StatusFacts } from '../../src/status/types.js';
import { quietFleet } from './fleets.js';

const QUIET = summarize(quietFleet(), []);

function attention(facts: Partial<StatusFacts>): StatusReport['attention'] {
  return withAttention({ ...QUIET, ...facts }).attention;
}

function only(facts: Partial<StatusFacts>) {
  const items = attention(facts);
  assert.is(items.length, 1, JSON.stringify(items));
  return items[0]!;
}

const dup = (replica: string, nodes: string[]) => ({ replica, model: 'm', nodes, recordNodes: ['a1'] });
const warning = (replica: string, node: string) => ({ replica, node, reported: 'http://10.9.9.9:9000', routed: `http://${node}:8000` });

test('the quiet fleet needs nothing: every item below comes from the one fact set by hand', () => {
  assert.equal(QUIET.attention, []);
});

test('a blocked plan is an item of kind blocked that quotes the rule, and no subjects', () => {
  assert.equal(only({ blocked: 'would stop 2 of 2 replicas of m (maxStopFraction 0.5)' }), {
    kind: 'blocked',
    text: 'the plan is blocked, nothing is applied: would stop 2 of 2 replicas of m (maxStopFraction 0.5)',
    subjects: [],
  });
});

test('one duplicate copy: "1 replica id also runs where it is not placed", named with the nodes it runs on and its model', () => {
  assert.equal(only({ duplicates: [dup('m-0', ['a2'])] }), {
    kind: 'duplicates',
    text: '1 replica id also runs where it is not placed (duplicate copies, being stopped)',
    subjects: [{ name: 'm-0', detail: 'on a2', model: 'm' }],
  });
});

test('two duplicate copies: plural count and verbs, "also run where they are not placed"; a copy on several nodes reads as one hostlist', () => {
  assert.equal(only({ duplicates: [dup('m-0', ['a2']), dup('m-1', ['h1', 'h2', 'h3'])] }), {
    kind: 'duplicates',
    text: '2 replica ids also run where they are not placed (duplicate copies, being stopped)',
    subjects: [
      { name: 'm-0', detail: 'on a2', model: 'm' },
      { name: 'm-1', detail: 'on h[1-3]', model: 'm' },
    ],
  });
});

const failedRow = (id: string, error: string | null) => ({ id, model: 'm', nodes: ['a1'], state: 'failed' as const, idleSeconds: -1, idleSince: null, error });
const failingCheck = (id: string, error: string) => ({
  id,
  model: 'm',
  nodes: ['a1', 'a2'],
  state: 'running' as const,
  idleSeconds: -1,
  idleSince: null,
  error: null,
  check: { ok: false as const, error },
});

test("one failing answer check: kind checks-failing, 'its answer check', the check's line after where it runs", () => {
  assert.equal(only({ replicas: [failingCheck('m-0', 'expected /ready/i, got "nope"')] }), {
    kind: 'checks-failing',
    text: '1 replica failing its answer check (not routed)',
    subjects: [{ name: 'm-0', detail: 'on a[1-2]: expected /ready/i, got "nope"', model: 'm' }],
  });
});

test("two failing answer checks: 'their answer check', each replica named in order", () => {
  const item = only({ replicas: [failingCheck('m-0', 'no answer within 10 s'), failingCheck('m-1', 'HTTP 500')] });
  assert.is(item.text, '2 replicas failing their answer check (not routed)');
  assert.equal(
    item.subjects.map((s) => [s.name, s.detail]),
    [
      ['m-0', 'on a[1-2]: no answer within 10 s'],
      ['m-1', 'on a[1-2]: HTTP 500'],
    ],
  );
});

test("an error's runs of whitespace (newlines, tabs, spaces) read as one space, and none is left at either end", () => {
  const item = only({ replicas: [failedRow('m-0', '\n  Traceback:\n\n\tCUDA  out of memory \r\n')] });
  assert.equal(item.subjects, [{ name: 'm-0', detail: 'on a1: Traceback: CUDA out of memory', model: 'm' }]);
});

test('an error of exactly 120 characters is kept whole; one of 121 is cut to 119 and an ellipsis', () => {
  const e120 = 'e'.repeat(120);
  assert.is(only({ replicas: [failedRow('m-0', e120)] }).subjects[0]!.detail, `on a1: ${e120}`);
  assert.is(only({ replicas: [failedRow('m-0', `${e120}X`)] }).subjects[0]!.detail, `on a1: ${'e'.repeat(119)}…`);
  // Whitespace is folded before the length is taken: 120 once folded is whole.
  assert.is(
    only({ replicas: [failedRow('m-0', `  ${'e'.repeat(60)}\n\n${'e'.repeat(59)}  `)] }).subjects[0]!.detail,
    `on a1: ${'e'.repeat(60)} ${'e'.repeat(59)}`,
  );
});

test('a failed rollout is an item of kind rollout-failed naming the model, linked to its page, with no detail', () => {
  const models = [{ ...QUIET.models[0]!, rollout: { spec: '5f2c9a1e', stage: 'failed' as const, text: 'rollout failed for spec 5f2c9a1e: x' } }];
  assert.equal(only({ models }), { kind: 'rollout-failed', text: 'rollout failed for 1 model', subjects: [{ name: 'm', detail: null, model: 'm' }] });
});

test("one GPU in someone else's hands: 'placement leaves it alone', named node:index and linked to its node", () => {
  assert.equal(only({ nodes: { ...QUIET.nodes, other: [{ node: 'a2', gpus: [3] }] } }), {
    kind: 'gpus-other',
    text: '1 GPU in use by someone else (placement leaves it alone)',
    subjects: [{ name: 'a2:3', detail: null, node: 'a2' }],
  });
});

test("GPUs in someone else's hands are counted one by one, nodes with the same indices share one entry that links to no single node", () => {
  const other = [
    { node: 'a1', gpus: [0, 1] },
    { node: 'a2', gpus: [0, 1] },
    { node: 'h1', gpus: [2] },
  ];
  assert.equal(only({ nodes: { ...QUIET.nodes, other } }), {
    kind: 'gpus-other',
    text: '5 GPUs in use by someone else (placement leaves them alone)',
    subjects: [
      { name: 'a[1-2]:[0-1]', detail: null },
      { name: 'h1:2', detail: null, node: 'h1' },
    ],
  });
});

test("a node listed with no GPU in someone else's hands adds no item", () => {
  assert.equal(attention({ nodes: { ...QUIET.nodes, other: [{ node: 'a1', gpus: [] }] } }), []);
});

test("one replica at another endpoint: 'reported by its node', named by replica with the node it runs on, linked to that node", () => {
  const item = only({ endpointWarnings: [warning('m-0', 'a1')] });
  assert.is(item.kind, 'endpoints-differ');
  assert.is(
    item.text,
    "1 replica reported by its node at an endpoint other than cluster.yaml's host and port, which the routers use (llmgw status --json: endpointWarnings)",
  );
  assert.equal(item.subjects, [{ name: 'm-0', detail: 'on a1', node: 'a1' }]);
});

test("two replicas at another endpoint: 'reported by their nodes'; the endpoint itself is never quoted in the item", () => {
  const item = only({ endpointWarnings: [warning('m-0', 'a1'), warning('m-1', 'h1')] });
  assert.is(
    item.text,
    "2 replicas reported by their nodes at an endpoint other than cluster.yaml's host and port, which the routers use (llmgw status --json: endpointWarnings)",
  );
  assert.equal(item.subjects, [
    { name: 'm-0', detail: 'on a1', node: 'a1' },
    { name: 'm-1', detail: 'on h1', node: 'h1' },
  ]);
  assert.not.ok(JSON.stringify(item).includes('10.9.9.9'));
});

test('every kind at once comes most urgent first: blocked, duplicates, nodes, GPUs, placement, replicas, models, rollouts, other GPUs, endpoints', () => {
  const since = { since: null, reason: 'timeout' as const, error: null };
  const items = attention({
    blocked: 'would stop 2 of 2',
    duplicates: [dup('m-0', ['a2'])],
    nodes: { ...QUIET.nodes, lost: [{ node: 'x1', ...since }], unreachable: [{ node: 'x2', ...since }], other: [{ node: 'a2', gpus: [3] }] },
    unhealthyGpus: [{ node: 'a1', index: 2, class: 'H100', reason: null }],
    unplaceable: [{ model: 'big', missing: 8, reason: 'no fabric has 8 free GPUs' }],
    replicas: [failedRow('m-0', null), failingCheck('m-1', 'HTTP 500')],
    models: [
      { name: 'm', desired: 2, running: 0, starting: 0, failed: 1, rollout: { spec: 's', stage: 'failed', text: 't' } },
      { name: 'n', desired: 2, running: 1, starting: 0, failed: 0 },
    ],
    endpointWarnings: [warning('m-1', 'a1')],
    surviveWarnings: ["model 'n' does not survive the loss of node a1: all its 1 replica run there (models.yaml survive: node)"],
  });
  assert.equal(
    items.map((i) => i.kind),
    [
      'blocked',
      'duplicates',
      'nodes-lost',
      'nodes-unreachable',
      'gpus-unhealthy',
      'unplaceable',
      'replicas-failed',
      'checks-failing',
      'models-down',
      'models-short',
      'survive-broken',
      'rollout-failed',
      'gpus-other',
      'endpoints-differ',
    ],
  );
});

test('a survive: the fleet breaks is an item naming each model and what it would not survive, so the list never says nothing needs attention under the warning', () => {
  const item = only({
    surviveWarnings: [
      "model 'm' does not survive the loss of node a1: all its 2 replicas run there (models.yaml survive: node)",
      "model 'm' does not survive the loss of fabric ib-a: all its 2 replicas run there (models.yaml survive: fabric)",
      "model 'n' has no replica, so it survives no node loss (models.yaml survive: node)",
    ],
  });
  assert.equal(item, {
    kind: 'survive-broken',
    text: '2 models would not survive the loss models.yaml says they must (survive:)',
    subjects: [
      { name: 'm', detail: 'does not survive the loss of node a1: all its 2 replicas run there', model: 'm' },
      { name: 'm', detail: 'does not survive the loss of fabric ib-a: all its 2 replicas run there', model: 'm' },
      { name: 'n', detail: 'has no replica, so it survives no node loss', model: 'n' },
    ],
  });
  assert.equal(
    only({ surviveWarnings: ["model 'x' does not survive the loss of node a1: all its 1 replica run there (models.yaml survive: node)"] }).text,
    '1 model would not survive the loss models.yaml says it must (survive:)',
  );
  assert.equal(attention({ surviveWarnings: [] }), []);
});

test.run();
