// The lifecycle lines of STATUS.md and `llmgw status` (docs/status.md#what-it-shows),
// checked on small hand-built reports: GPU index lists of a node compressed into
// runs, the "Draining before a stop" line and its cap at 20 names, one line per
// rollout (a failed one's model in bold, without "Rollout of"), and the Nodes
// section's "GPUs in other hands (N): …" line.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lifecycleModelLines, nodeGpus, otherGpusLine } from '../../../src/views/status/lifecycle-sections.js';
import type { ModelRow, OtherGpus, ReplicaRow, StatusReport } from '../../../src/status/types.js';
import { blankReport } from '../../status/blank-report.js';

/** Marks every escaped string, so a test sees which strings went through the escaper. */
const esc = (s: string): string => `<${s}>`;
const plain = (s: string): string => s;

function reportOf(parts: { replicas?: ReplicaRow[]; models?: ModelRow[]; other?: OtherGpus[] }): StatusReport {
  return blankReport({
    models: parts.models ?? [],
    replicas: parts.replicas ?? [],
    nodes: { unreachable: [], lost: [], cordoned: [], ...(parts.other ? { other: parts.other } : {}) },
  });
}

function replica(id: string, state: ReplicaRow['state']): ReplicaRow {
  return { id, model: 'm', nodes: ['n1'], state, idleSeconds: -1, idleSince: null, error: null };
}

const DRAIN = 'Draining before a stop (out of every router, stopped once none has a request in flight for it, or at drainTimeout): ';

// --- nodeGpus: one node's GPU indices, runs of consecutive indices as `a-b` ---

test('nodeGpus: a single GPU is its bare index after the escaped node name, without brackets', () => {
  assert.is(nodeGpus({ node: 'gpu-a03', gpus: [3] }, plain), 'gpu-a03:3');
  assert.is(nodeGpus({ node: 'gpu-a03', gpus: [0] }, esc), '<gpu-a03>:0');
});

test('nodeGpus: several GPUs go in brackets, consecutive indices fold into a run, gaps are separated by commas', () => {
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [0, 1, 4] }, plain), 'gpu-b01:[0-1,4]');
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [0, 1] }, plain), 'gpu-b01:[0-1]');
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [0, 4] }, plain), 'gpu-b01:[0,4]');
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [2, 4, 6] }, plain), 'gpu-b01:[2,4,6]');
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [1, 2, 3, 5, 6, 7] }, plain), 'gpu-b01:[1-3,5-7]');
  assert.is(nodeGpus({ node: 'gpu-b01', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }, esc), '<gpu-b01>:[0-7]');
});

test('nodeGpus: only ascending neighbours make a run: a descending pair or a repeat stays apart', () => {
  assert.is(nodeGpus({ node: 'n', gpus: [5, 4] }, plain), 'n:[5,4]');
  assert.is(nodeGpus({ node: 'n', gpus: [3, 3] }, plain), 'n:[3,3]');
  assert.is(nodeGpus({ node: 'n', gpus: [7, 0, 1] }, plain), 'n:[7,0-1]');
});

test('nodeGpus: a run of one GPU after a run of several is a bare index, not `4-4`', () => {
  assert.is(nodeGpus({ node: 'n', gpus: [0, 1, 4] }, plain), 'n:[0-1,4]');
  assert.is(nodeGpus({ node: 'n', gpus: [4, 6, 7] }, plain), 'n:[4,6-7]');
});

// --- lifecycleModelLines: the lines under the models table ---

test('lifecycle lines: no draining replica and no rollout, no line', () => {
  const r = reportOf({
    replicas: [replica('m-0', 'running'), replica('m-1', 'failed')],
    models: [{ name: 'm', desired: 2, running: 1, starting: 0, failed: 1 }],
  });
  assert.equal(lifecycleModelLines(r, esc, '- '), []);
});

test('lifecycle lines: draining replicas are named in one line, in report order, escaped, separated by ", "', () => {
  const r = reportOf({ replicas: [replica('m-0', 'running'), replica('m-2', 'draining'), replica('m-1', 'draining')] });
  assert.equal(lifecycleModelLines(r, esc, '- '), [`- ${DRAIN}<m-2>, <m-1>`]);
});

test('lifecycle lines: one draining replica is named alone, without ", and N more"', () => {
  const r = reportOf({ replicas: [replica('m-0', 'draining')] });
  assert.equal(lifecycleModelLines(r, plain, '* '), [`* ${DRAIN}m-0`]);
});

test('lifecycle lines: the draining line names the first 20 replicas and says ", and N more" for the rest', () => {
  const ids = Array.from({ length: 23 }, (_, i) => `m-${String(i).padStart(2, '0')}`);
  const r = reportOf({ replicas: ids.map((id) => replica(id, 'draining')) });
  assert.equal(lifecycleModelLines(r, plain, '- '), [`- ${DRAIN}${ids.slice(0, 20).join(', ')}, and 3 more`]);
});

test('lifecycle lines: exactly 20 draining replicas are all named, no ", and 0 more"', () => {
  const ids = Array.from({ length: 20 }, (_, i) => `m-${String(i).padStart(2, '0')}`);
  const r = reportOf({ replicas: ids.map((id) => replica(id, 'draining')) });
  assert.equal(lifecycleModelLines(r, plain, '- '), [`- ${DRAIN}${ids.join(', ')}`]);
});

test('lifecycle lines: a rollout under way reads "Rollout of <model>: <text>"; a failed one puts its model in bold instead, both escaped', () => {
  const models: ModelRow[] = [
    { name: 'a', desired: 1, running: 1, starting: 0, failed: 0 },
    {
      name: 'b',
      desired: 4,
      running: 4,
      starting: 1,
      failed: 0,
      rollout: { spec: '5f2c9a1e', stage: 'canary', text: 'canary 1 of 4 for spec 5f2c9a1e: starting' },
    },
    {
      name: 'c',
      desired: 2,
      running: 2,
      starting: 0,
      failed: 0,
      rollout: { spec: '0badc0de', stage: 'failed', text: 'rollout failed for spec 0badc0de: error rate 20%' },
    },
    { name: 'd', desired: 2, running: 2, starting: 0, failed: 0, rollout: { spec: '12345678', stage: 'rolling', text: 'rolling 2 of 2 for spec 12345678' } },
  ];
  const r = reportOf({ replicas: [replica('a-0', 'draining')], models });
  assert.equal(lifecycleModelLines(r, esc, '- '), [
    `- ${DRAIN}<a-0>`,
    '- Rollout of <b>: <canary 1 of 4 for spec 5f2c9a1e: starting>',
    '- **<c>**: <rollout failed for spec 0badc0de: error rate 20%>',
    '- Rollout of <d>: <rolling 2 of 2 for spec 12345678>',
  ]);
});

test("lifecycle lines: a failed rollout uses the caller's strong(), a holding one does not", () => {
  const models: ModelRow[] = [
    { name: 'h', desired: 2, running: 2, starting: 0, failed: 0, rollout: { spec: 's1', stage: 'hold', text: 'holding spec s1' } },
    { name: 'f', desired: 2, running: 2, starting: 0, failed: 0, rollout: { spec: 's2', stage: 'failed', text: 'rollout failed for spec s2' } },
  ];
  const strong = (s: string): string => `\x1b[1m${s}\x1b[0m`;
  assert.equal(lifecycleModelLines(reportOf({ models }), plain, '  ', strong), [
    '  Rollout of h: holding spec s1',
    '  \x1b[1mf\x1b[0m: rollout failed for spec s2',
  ]);
});

// --- otherGpusLine: GPUs in other hands ---

test('other GPUs line: none (absent or empty), no line', () => {
  assert.equal(otherGpusLine(reportOf({}), esc, 'GPUs in other hands'), []);
  assert.equal(otherGpusLine(reportOf({ other: [] }), esc, 'GPUs in other hands'), []);
});

test('other GPUs line: the count is every GPU of every node, then each node\'s GPUs compressed, escaped, separated by ", "', () => {
  const r = reportOf({
    other: [
      { node: 'gpu-a03', gpus: [3] },
      { node: 'gpu-b01', gpus: [0, 1, 4] },
    ],
  });
  assert.equal(otherGpusLine(r, esc, 'GPUs in other hands'), ['GPUs in other hands (4): <gpu-a03>:3, <gpu-b01>:[0-1,4]']);
});

test('other GPUs line: one node with one GPU counts 1', () => {
  const r = reportOf({ other: [{ node: 'n7', gpus: [5] }] });
  assert.equal(otherGpusLine(r, plain, 'Other'), ['Other (1): n7:5']);
});

test('other GPUs line: the first 20 nodes are listed, then ", and N more"; the count still covers every GPU', () => {
  const other = Array.from({ length: 22 }, (_, i) => ({ node: `n${String(i).padStart(2, '0')}`, gpus: [0, 1] }));
  const shown = other
    .slice(0, 20)
    .map((o) => `${o.node}:[0-1]`)
    .join(', ');
  assert.equal(otherGpusLine(reportOf({ other }), plain, 'GPUs in other hands'), [`GPUs in other hands (44): ${shown}, and 2 more`]);
});

test.run();
