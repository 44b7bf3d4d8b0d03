// How "Needs attention" reads where an operator sees it (docs/status.md): the
// same headline and subjects in STATUS.md and the terminal, text that came
// from a node (replica ids, node names) escaped in both, and a model with a
// failed replica listed among the rows that need attention even when enough run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelNeedsAttention } from '../../src/status/attention.js';
import { summarize, withAttention } from '../../src/status/index.js';
import { renderStatusMarkdown, renderStatusText } from '../../src/views/status/index.js';
import type { ModelRow, StatusFacts } from '../../src/status/types.js';
import { quietFleet } from './fleets.js';

const QUIET = summarize(quietFleet(), []);
const report = (facts: Partial<StatusFacts>) => withAttention({ ...QUIET, ...facts });

/** The lines under "Needs attention" in STATUS.md. */
function mdItems(md: string): string[] {
  return md.split('**Needs attention:**\n\n')[1]!.split('\n\n')[0]!.split('\n');
}

/** The lines under "Needs attention" in the terminal. */
function textItems(text: string): string[] {
  return text.split('Needs attention\n')[1]!.split('\n\n')[0]!.split('\n');
}

test("a duplicate copy's id and nodes as a node reported them are escaped in STATUS.md and stripped of escapes in the terminal", () => {
  const r = report({ duplicates: [{ replica: 'm-0<img src=x>*', model: 'm', nodes: ['a2'], recordNodes: ['a1'] }] });
  assert.equal(mdItems(renderStatusMarkdown(r)), [
    '- 1 replica id also runs where it is not placed (duplicate copies, being stopped): m-0&lt;img src=x>\\* (on a2)',
  ]);
  const evil = report({ duplicates: [{ replica: 'm-0\u001b[31m', model: 'm', nodes: ['a2'], recordNodes: ['a1'] }] });
  assert.equal(textItems(renderStatusText(evil, { color: false })), [
    '  ! 1 replica id also runs where it is not placed (duplicate copies, being stopped): m-0[31m (on a2)',
  ]);
});

test("an endpoint warning's replica id and node are escaped in STATUS.md; the headline says where to read the endpoint", () => {
  const r = report({ endpointWarnings: [{ replica: 'm-[0](http://evil)', node: 'a_1', reported: 'http://10.9.9.9:1', routed: 'http://a_1:8000' }] });
  assert.equal(mdItems(renderStatusMarkdown(r)), [
    "- 1 replica reported by its node at an endpoint other than cluster.yaml's host and port, which the routers use (llmgw status --json: endpointWarnings): m-\\[0\\]\\(http\\://evil\\) (on a\\_1)",
  ]);
  assert.equal(textItems(renderStatusText(r, { color: false })), [
    "  ! 1 replica reported by its node at an endpoint other than cluster.yaml's host and port, which the routers use (llmgw status --json: endpointWarnings): m-[0](http://evil) (on a_1)",
  ]);
});

test("GPUs in someone else's hands read the same in STATUS.md and the terminal: count, 'them', node:index hostlists", () => {
  const r = report({
    nodes: {
      ...QUIET.nodes,
      other: [
        { node: 'a1', gpus: [0, 1] },
        { node: 'a2', gpus: [0, 1] },
      ],
    },
  });
  assert.equal(mdItems(renderStatusMarkdown(r)), ['- 4 GPUs in use by someone else (placement leaves them alone): a\\[1-2\\]:\\[0-1\\]']);
  assert.equal(textItems(renderStatusText(r, { color: false })), ['  ! 4 GPUs in use by someone else (placement leaves them alone): a[1-2]:[0-1]']);
});

const row = (name: string, over: Partial<ModelRow> = {}): ModelRow => ({ name, desired: 2, running: 2, starting: 0, failed: 0, ...over });

test('a model needs attention when fewer run than desired or any replica failed, not otherwise', () => {
  assert.is(modelNeedsAttention(row('m')), false);
  assert.is(modelNeedsAttention(row('m', { running: 1, starting: 1 })), true);
  assert.is(modelNeedsAttention(row('m', { failed: 1 })), true, 'all running, one failed');
  assert.is(modelNeedsAttention(row('m', { running: 3, failed: 2 })), true, 'more than desired running, failures still shown');
});

test('a model fully running but with a failed replica is listed before a healthy one it sorts after, in STATUS.md and the terminal', () => {
  const r = report({ models: [row('aaa'), row('zzz', { failed: 1 })] });
  const mdRows = renderStatusMarkdown(r)
    .split('\n## Models\n')[1]!
    .split('\n## ')[0]!
    .split('\n')
    .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| Model'));
  assert.equal(
    mdRows.map((l) => l.split(' | ')[0]),
    ['| zzz', '| aaa'],
  );
  const textRows = renderStatusText(r, { color: false }).split('\nModels\n')[1]!.split('\n').slice(1, 3);
  assert.equal(
    textRows.map((l) => l.trim().split(/\s+/)[0]),
    ['zzz', 'aaa'],
  );
});

test.run();
