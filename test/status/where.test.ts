// STATUS.md says where and why (docs/status.md): which GPUs, which nodes and
// for what reason, which replicas with their error, which models — and it does
// so without churn, folding what is long.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFleet } from '../../src/fleet/index.js';
import { summarize, type StatusReport } from '../../src/status/index.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { md as mdEscape } from '../../src/text/markdown-escape.js';
import { REASON_LABEL } from '../../src/text/reason-labels.js';
import { MAX_ROWS } from '../../src/views/status/render-markdown.js';
import { gpuList } from '../../src/status/where.js';
import { emptyState } from '../../src/types/state.js';
import type { NodeObservation } from '../../src/types/snapshot.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';
import { ROOT, exampleStatus } from './cli-helpers.js';

/** What a reader sees with every <details> closed. */
function open(md: string): string {
  return md.replace(/<details>.*?<\/details>/gs, '');
}

test('examples/large: every unhealthy GPU, unreachable and lost node (with its reason) and failed replica is named before any fold, in at most two screens', async () => {
  const json = JSON.parse((await exampleStatus('large', '--json')).out) as StatusReport;
  const md = readFileSync(join(ROOT, 'examples/large/STATUS.md'), 'utf8');
  const seen = open(md);
  assert.ok(json.unhealthyGpus.length >= 6 && json.nodes.unreachable.length >= 3 && json.nodes.lost.length >= 2);
  for (const g of json.unhealthyGpus) assert.ok(seen.includes(gpuList(g.node, [g.index])), `${g.node}:${g.index}`);
  for (const n of [...json.nodes.unreachable, ...json.nodes.lost]) assert.ok(seen.includes(`${n.node} (${REASON_LABEL[n.reason]})`), n.node);
  assert.ok(
    json.nodes.unreachable.some((n) => n.reason === 'host-key-changed'),
    'a changed host key is its own class, not "unreachable"',
  );
  const failed = json.replicas.filter((r) => r.state === 'failed');
  assert.is(failed.length, 2);
  for (const r of failed) {
    assert.ok(r.error !== null && r.error.length > 0, r.id);
    assert.ok(seen.includes(`${r.id} (on ${r.nodes[0]}: ${mdEscape(r.error).slice(0, 40)}`), r.id);
  }
  for (const m of json.models.filter((x) => x.running + x.starting < x.desired))
    assert.ok(seen.includes(`${m.name} (${m.running} of ${m.desired} running`), m.name);
  const lines = seen.split('\n').length;
  assert.ok(lines <= 100, `${lines} lines with the folds closed`);
});

test('a table past 20 rows shows the rows that need attention and folds the rest; under 20 it shows them first', async () => {
  const md = readFileSync(join(ROOT, 'examples/large/STATUS.md'), 'utf8');
  const models = md.split('\n## Models\n')[1]!.split('\n## ')[0]!;
  const [shown, folded] = models.split('<details>');
  const shownRows = shown!.split('\n').filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| Model'));
  assert.ok(shownRows.length > 0 && shownRows.length <= MAX_ROWS);
  for (const row of shownRows) {
    const [, desired = NaN, running = NaN, , failed = NaN] = row.slice(2, -2).split(' | ').map(Number);
    assert.ok(running < desired || failed > 0, row);
  }
  assert.match(folded!, /^<summary>\d+ more models, all running as desired<\/summary>/);
  const demo = readFileSync(join(ROOT, 'examples/demo/STATUS.md'), 'utf8');
  assert.not.ok(demo.includes('<details>'), 'a short STATUS.md folds nothing');
  const demoRows = demo
    .split('\n## Models\n')[1]!
    .split('\n')
    .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| Model'));
  assert.equal(
    demoRows.slice(0, 2).map((r) => r.split(' | ')[0]),
    ['| deepseek-v3', '| mistral-7b'],
    'attention rows first',
  );
});

function fleetWith(nodes: NodeObservation[], names = nodes.map((n) => n.name)) {
  const c = config(
    names.map((n) => nodeConfig(n)),
    {},
    [model('m', { replicas: 2 })],
  );
  return buildFleet(c, snapshot(nodes), emptyState(), NOW);
}

test('a node that stays unreachable for the same reason with another error line leaves STATUS.md as it was', () => {
  const down = (error: string): NodeObservation => ({
    name: 'n2',
    reachable: false,
    error,
    reason: 'command-failed',
    unreachableSince: '2026-11-29T07:58:00Z',
    lastReport: null,
  });
  const a = renderStatusMarkdown(summarize(fleetWith([up('n1', report(gpus(8))), down('`llmgw agent report` exited with code 1: 08:00:01 boom')]), []));
  const b = renderStatusMarkdown(summarize(fleetWith([up('n1', report(gpus(8))), down('`llmgw agent report` exited with code 1: 08:01:07 boom')]), []));
  assert.is(a, b);
  assert.ok(a.includes('n2 (command failed)'));
});

test('unhealthy GPUs of one node read as one node:index hostlist', () => {
  const r = summarize(fleetWith([up('n1', report(gpus(8, undefined, [1, 4, 5, 6])))]), []);
  assert.equal(
    r.unhealthyGpus.map((g) => g.index),
    [1, 4, 5, 6],
  );
  const item = r.attention.find((i) => i.kind === 'gpus-unhealthy')!;
  assert.equal(item.subjects, [{ name: 'n1:[1,4-6]', detail: null, node: 'n1' }]);
  assert.ok(renderStatusMarkdown(r).includes('- 4 GPUs unhealthy: n1:\\[1,4-6\\]'));
});

test('nodes with the same broken GPU indices share one hostlist entry: gpu-a[01-03]:7, gpu-b04:[0-1]', () => {
  const names = ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-b04'];
  const r = summarize(fleetWith(names.map((n) => up(n, report(gpus(8, undefined, n === 'gpu-b04' ? [0, 1] : [7]))))), []);
  const item = r.attention.find((i) => i.kind === 'gpus-unhealthy')!;
  assert.equal(item.subjects, [
    { name: 'gpu-a[01-03]:7', detail: null },
    { name: 'gpu-b04:[0-1]', detail: null, node: 'gpu-b04' },
  ]);
  assert.ok(renderStatusMarkdown(r).includes('- 5 GPUs unhealthy: gpu-a\\[01-03\\]:7, gpu-b04:\\[0-1\\]'));
});

test('nodes of different prefixes with the same broken index stay apart: never `a052,c031:4`, which reads as two things', () => {
  const r = summarize(fleetWith(['hgx-a052', 'hgx-a053', 'hgx-c031'].map((n) => up(n, report(gpus(8, undefined, [4]))))), []);
  const item = r.attention.find((i) => i.kind === 'gpus-unhealthy')!;
  assert.equal(item.subjects, [
    { name: 'hgx-a[052-053]:4', detail: null },
    { name: 'hgx-c031:4', detail: null, node: 'hgx-c031' },
  ]);
});

test("a failed replica carries its agent's error, a multi-node one its failed rank's with the node, clipped in the attention line", () => {
  const long = 'its process (pid 7) exited; log: ' + 'x'.repeat(300);
  const r = summarize(
    fleetWith([
      up('n1', report(gpus(8), [replica('m-0', [0], { state: 'failed', error: long }), replica('m-1', [1], { rank: 0 })])),
      up('n2', report(gpus(8), [replica('m-1', [0], { rank: 1, state: 'failed', error: 'not healthy within startTimeoutSeconds (1200 s)' })])),
    ]),
    [],
  );
  const byId = Object.fromEntries(r.replicas.map((x) => [x.id, x]));
  assert.is(byId['m-0']!.error, long);
  assert.is(byId['m-1']!.error, 'n2: not healthy within startTimeoutSeconds (1200 s)');
  const item = r.attention.find((i) => i.kind === 'replicas-failed')!;
  assert.is(item.subjects[0]!.detail!.length, 'on n1: '.length + 120);
  assert.ok(item.subjects[0]!.detail!.endsWith('…'));
  assert.equal(item.subjects[1], { name: 'm-1', detail: 'on n[1-2]: n2: not healthy within startTimeoutSeconds (1200 s)', model: 'm' });
});

test('every attention item reads the same in text and STATUS.md, in the same order', () => {
  const r = summarize(
    fleetWith(
      [
        up('n1', report(gpus(8, undefined, [3]))),
        { name: 'n2', reachable: false, error: 'e', reason: 'auth', unreachableSince: '2026-11-29T07:59:00Z', lastReport: null },
      ],
      ['n1', 'n2', 'n3'],
    ),
    [],
  );
  const kinds = r.attention.map((i) => i.kind);
  // Its one model is named once, under its most specific cause (no running replica), not also as short.
  assert.equal(kinds, ['nodes-lost', 'nodes-unreachable', 'gpus-unhealthy', 'models-down']);
  const md = renderStatusMarkdown(r);
  const at = kinds.map((_, i) => md.indexOf(`- ${r.attention[i]!.text.slice(0, 12)}`));
  assert.equal(
    [...at].sort((a, b) => a - b),
    at,
  );
  assert.ok(md.includes('n2 (auth)') && md.includes('n3 (unknown)'));
});

test.run();
