// Where replicas run (docs/placement.md#survive): one row per model with a
// replica, from the status report alone, drawn the same by STATUS.md, `llmgw
// status` and the console. Every number is worked from the fleet the test states.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../../src/status/summarize.js';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { renderStatusText } from '../../../src/views/status/render-text.js';
import { MAX_ROW_NODES, lossText, nodesText, placementRows } from '../../../src/views/status/placement-rows.js';
import { makeFleet } from '../../fixtures/fleet.js';

const fleet = () =>
  makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a' },
      { name: 'a2', fabric: 'ib-a' },
      { name: 'b1', fabric: 'ib-b' },
    ],
    models: [
      { name: 'spread', gpus: 1, replicas: 2 },
      { name: 'piled', gpus: 1, replicas: 2 },
      { name: 'none', gpus: 1, replicas: 1 },
    ],
    replicas: [
      { id: 'spread-0', model: 'spread', ranks: [{ node: 'a1', gpus: [0] }] },
      { id: 'spread-1', model: 'spread', ranks: [{ node: 'b1', gpus: [0] }] },
      { id: 'piled-0', model: 'piled', ranks: [{ node: 'a2', gpus: [0] }] },
      { id: 'piled-1', model: 'piled', ranks: [{ node: 'a2', gpus: [1] }] },
      // Failed: it neither serves nor counts.
      { id: 'piled-2', model: 'piled', ranks: [{ node: 'b1', gpus: [1] }], state: 'failed' },
    ],
  });

test('one row per model with a serving replica: its nodes, and what its worst node and fabric loss leave', () => {
  const rows = placementRows(summarize(fleet(), []));
  assert.equal(
    rows.map((r) => [r.model, r.replicas, r.nodes, lossText(r.node), lossText(r.fabric), r.attention]),
    [
      // Both on a2: losing it leaves none, though the model has two replicas: listed first by every view.
      ['piled', 2, ['a2'], 'losing a2 leaves 0 of 2', 'losing ib-a leaves 0 of 2', true],
      // One on each fabric: any single loss leaves one.
      ['spread', 2, ['a1', 'b1'], 'losing a1 leaves 1 of 2', 'losing ib-a leaves 1 of 2', false],
    ],
  );
});

test('no room to replace is said; a model without a replica has no loss to show', () => {
  assert.is(lossText({ from: 1, to: 0, worst: 'n1', roomToReplace: false }), 'losing n1 leaves 0 of 1; no room to replace');
  assert.is(lossText({ from: 0, to: 0, worst: null, roomToReplace: true }), '—');
  assert.is(lossText(null), '—');
});

test(`past ${MAX_ROW_NODES} nodes a row names the first ${MAX_ROW_NODES} as a hostlist and counts the rest`, () => {
  const names = Array.from({ length: 25 }, (_, i) => `gpu-${String(i + 1).padStart(3, '0')}`);
  assert.is(nodesText(names), 'gpu-[001-010] and 15 more');
  assert.is(nodesText(['gpu-a01', 'gpu-a02', 'gpu-b03']), 'gpu-a[01-02],gpu-b03');
});

test('STATUS.md: the section after Models, the hostlist in a code span, the doubled-up model first', () => {
  const md = renderStatusMarkdown(summarize(fleet(), []));
  const section = md.split('\n## Where replicas run\n')[1]!.split('\n## ')[0]!;
  assert.equal(section.trim().split('\n'), [
    '| Model | Replicas | Nodes | Worst node loss | Worst fabric loss |',
    '| --- | ---: | --- | --- | --- |',
    '| piled | 2 | `a2` | losing a2 leaves 0 of 2 | losing ib-a leaves 0 of 2 |',
    '| spread | 2 | `a1,b1` | losing a1 leaves 1 of 2 | losing ib-a leaves 1 of 2 |',
  ]);
  assert.ok(md.indexOf('## Models') < md.indexOf('## Where replicas run'));
});

test('llmgw status: the same rows, and a broken survive: as a warning at the top', () => {
  const f = fleet();
  f.config.models.find((m) => m.name === 'piled')!.survive = 'node';
  const text = renderStatusText(summarize(f, []), { color: false });
  assert.match(text, /^warning: model 'piled' does not survive the loss of node a2: all its 2 replicas run there \(models\.yaml survive: node\)$/m);
  assert.match(
    text,
    /^Where replicas run\n {2}model +replicas +nodes +worst node loss +worst fabric loss\n {2}piled +2 +a2 +losing a2 leaves 0 of 2 +losing ib-a leaves 0 of 2\n {2}spread +2 +a1,b1 +losing a1 leaves 1 of 2/m,
  );
});

test('a fleet with no replica has no such section', () => {
  const f = makeFleet({ nodes: [{ name: 'a1' }], models: [{ name: 'm', gpus: 1, replicas: 0 }] });
  assert.not.ok(renderStatusMarkdown(summarize(f, [])).includes('Where replicas run'));
  assert.not.ok(renderStatusText(summarize(f, []), { color: false }).includes('Where replicas run'));
});

test.run();
