// What a node reports that llmgw never started, and GPUs it is not believed to
// have (docs/safety.md#records-over-reports, docs/placement.md#inventory): one
// attention line each, escaped like every other text from a node, at most 20
// of a kind and then one line counting the rest.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_EACH } from '../../src/status/attention.js';
import { withAttention } from '../../src/status/index.js';
import type { StatusFacts, UnrecordedRow } from '../../src/status/types.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { blankReport } from './blank-report.js';

const row = (i: number, node = 'g2'): UnrecordedRow => ({ replica: `m-${i}`, model: 'm', node, gpus: [i], state: 'running' });
const facts = (over: Partial<StatusFacts>): StatusFacts => {
  const { attention: _a, ...rest } = blankReport(over);
  return rest;
};

test('each unrecorded copy is one attention line naming its node and replica, left alone; its text is escaped', () => {
  const r = withAttention(facts({ unrecorded: [row(1), { ...row(2, 'g3'), replica: 'm-2<b>*' }] }));
  assert.equal(
    r.attention.map((a) => [a.kind, a.text]),
    [
      ['unrecorded', 'node g2 reports replica m-1 that llmgw never started; left alone'],
      ['unrecorded', 'node g3 reports replica m-2<b>* that llmgw never started; left alone'],
    ],
  );
  const md = renderStatusMarkdown(r);
  assert.match(md, '- node g2 reports replica m-1 that llmgw never started; left alone');
  assert.not.match(md, '<b>');
});

test(`past ${MAX_EACH} unrecorded copies, one more line counts the rest and says where the whole list is`, () => {
  const r = withAttention(facts({ unrecorded: Array.from({ length: MAX_EACH + 5 }, (_, i) => row(i)) }));
  const lines = r.attention.filter((a) => a.kind === 'unrecorded').map((a) => a.text);
  assert.is(lines.length, MAX_EACH + 1);
  assert.is(lines[MAX_EACH], '5 more replicas that llmgw never started, left alone (llmgw status --json: unrecorded)');
});

test('a node over its GPU bound is one line: what it reports, what it is believed to have and why, what it is placed with', () => {
  const r = withAttention(facts({ inventoryBounded: [{ node: 'g4', reported: 1024, believed: 8, source: 'best-known' }] }));
  assert.equal(
    r.attention.map((a) => a.text),
    ['node g4 reports 1024 GPUs, more than the 8 it is believed to have (the most it reported before); placed with 8'],
  );
  assert.equal(withAttention(facts({})).attention, [], 'nothing of either kind: no line');
});

test.run();
