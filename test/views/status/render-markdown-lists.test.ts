// STATUS.md's lists (src/views/status/render-markdown.ts): models that cannot be
// placed (20 shown, the rest folded, at most 500 in the fold), the nodes that
// need a look (which stand out, cordoned as well as out of reach), and GPUs in
// other hands — each with its exact wording, node-supplied text escaped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { EVERY_ONE } from '../../../src/views/status/markdown-blocks.js';
import type { Unplaceable } from '../../../src/types/plan.js';
import type { StatusReport } from '../../../src/status/types.js';
import { blankReport, fold, pad, section } from '../../status/blank-report.js';

const unplaceable = (n: number): Unplaceable[] => Array.from({ length: n }, (_, i) => ({ model: `m-${pad(i, 3)}`, missing: 1, reason: 'no free GPU' }));
const bullet = (u: Unplaceable): string => `- **${u.model}** (${u.missing} missing): ${u.reason}`;

test('a model that cannot be placed is a bullet with how many replicas are missing and why, escaped', () => {
  const out = renderStatusMarkdown(blankReport({ unplaceable: [{ model: 'm*1', missing: 2, reason: 'needs 8 <H100> [x](y)' }] }));
  assert.equal(section(out, 'Cannot be placed'), ['## Cannot be placed', '', '- **m\\*1** (2 missing): needs 8 &lt;H100> \\[x\\]\\(y\\)', '']);
  assert.ok(out.includes('\\(y\\)\n\n## Idle replicas\n'));
});

test('no section "Cannot be placed" when every model is placed', () => {
  assert.not.ok(renderStatusMarkdown(blankReport()).includes('Cannot be placed'));
});

test('exactly 20 models that cannot be placed are all listed, with no fold', () => {
  const us = unplaceable(20);
  assert.equal(cannotPlace(us), ['## Cannot be placed', '', ...us.map(bullet), '']);
});

/** The section STATUS.md gives `us`. */
const cannotPlace = (us: Unplaceable[]) => section(renderStatusMarkdown(blankReport({ unplaceable: us })), 'Cannot be placed');
/** The section with the first 20 of `us` as bullets and `folded` inside a fold summarised as `summary`. */
const folded = (us: Unplaceable[], summary: string, inside: string[]) => [
  '## Cannot be placed',
  '',
  ...us.slice(0, 20).map(bullet),
  '',
  ...fold(summary, inside),
  '',
];

test('past 20 models that cannot be placed, the first 20 show and the rest fold as "N more"', () => {
  const us = unplaceable(21);
  assert.equal(cannotPlace(us), folded(us, '1 more', [bullet(us[20]!)]));
});

test('a fold of exactly 500 models that cannot be placed writes every one and no "… and N more" line', () => {
  const us = unplaceable(520);
  assert.equal(cannotPlace(us), folded(us, '500 more', us.slice(20).map(bullet)));
});

test('past 500 folded models that cannot be placed the fold says how many more and where they are listed', () => {
  const us = unplaceable(521);
  assert.equal(cannotPlace(us), folded(us, '501 more', [...us.slice(20, 520).map(bullet), '', `… and 1 more: ${EVERY_ONE}.`]));
});

const NODE_HEAD = ['| Node | Condition | Reason | Since | Unhealthy GPUs |', '| --- | --- | --- | --- | --- |'];
const nodes = (over: Partial<StatusReport['nodes']>): StatusReport['nodes'] => ({ unreachable: [], lost: [], cordoned: [], ...over });

test('a node out of reach that is also cordoned says both; a cordoned node says it once', () => {
  const report = blankReport({
    nodes: nodes({ unreachable: [{ node: 'n1', since: '2026-11-28T10:00:00Z', reason: 'timeout', error: 'x' }], cordoned: [{ node: 'n1' }, { node: 'n2' }] }),
  });
  assert.equal(section(renderStatusMarkdown(report), 'Nodes'), [
    '## Nodes',
    '',
    ...NODE_HEAD,
    '| n1 | unreachable, cordoned | timeout | 2026-11-28 | — |',
    '| n2 | cordoned | — | — | — |',
    '',
  ]);
});

test('past 20 node rows, nodes out of reach and cordoned nodes with unhealthy GPUs stand out; plain cordoned ones fold', () => {
  const plain = Array.from({ length: 20 }, (_, i) => ({ node: `c-${pad(i)}` }));
  const report = blankReport({
    nodes: nodes({ unreachable: [{ node: 'u1', since: null, reason: 'refused', error: null }], cordoned: [...plain, { node: 'c-gpu' }] }),
    unhealthyGpus: [{ node: 'c-gpu', index: 3, class: 'H100', reason: 'XID 79' }],
  });
  assert.equal(section(renderStatusMarkdown(report), 'Nodes'), [
    '## Nodes',
    '',
    ...NODE_HEAD,
    '| u1 | unreachable | refused | unknown | — |',
    '| c-gpu | cordoned | — | — | 3 \\(XID 79\\) |',
    '',
    '<details><summary>20 more cordoned nodes</summary>',
    '',
    ...NODE_HEAD,
    ...plain.map((c) => `| ${c.node} | cordoned | — | — | — |`),
    '',
    '</details>',
    '',
  ]);
});

test('past 20 node rows, all plain cordoned, the whole table folds as "N cordoned nodes"', () => {
  const plain = Array.from({ length: 21 }, (_, i) => ({ node: `c-${pad(i)}` }));
  const out = section(renderStatusMarkdown(blankReport({ nodes: nodes({ cordoned: plain }) })), 'Nodes');
  assert.equal(out.slice(0, 3), ['## Nodes', '', '<details><summary>21 cordoned nodes</summary>']);
});

test('GPUs in other hands are a line of their own, node names escaped, also when no node needs a look', () => {
  const out = renderStatusMarkdown(blankReport({ nodes: nodes({ other: [{ node: 'g_1', gpus: [0, 1, 3] }] }) }));
  assert.equal(section(out, 'Nodes'), [
    '## Nodes',
    '',
    'Every node is reachable and uncordoned; no GPU is unhealthy.',
    '',
    '**GPUs in other hands** (3): g\\_1:[0-1,3]',
    '',
  ]);
  assert.ok(out.endsWith('unhealthy.\n\n**GPUs in other hands** (3): g\\_1:[0-1,3]\n'), 'the file ends with the line');
});

test('GPUs in other hands follow the node table after a blank line, and end the file', () => {
  const out = renderStatusMarkdown(blankReport({ nodes: nodes({ cordoned: [{ node: 'n2' }], other: [{ node: 'g1', gpus: [5] }] }) }));
  assert.equal(section(out, 'Nodes'), ['## Nodes', '', ...NODE_HEAD, '| n2 | cordoned | — | — | — |', '', '**GPUs in other hands** (1): g1:5', '']);
  assert.ok(out.endsWith('| n2 | cordoned | — | — | — |\n\n**GPUs in other hands** (1): g1:5\n'));
});

test('with nothing to report the Nodes section says so and ends the file', () => {
  const out = renderStatusMarkdown(blankReport());
  assert.ok(out.endsWith('## Nodes\n\nEvery node is reachable and uncordoned; no GPU is unhealthy.\n'));
});

test.run();
