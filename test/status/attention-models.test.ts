// "Needs attention" without noise (docs/status.md#what-it-shows): a model is
// named once, under the most specific of "cannot be placed", "no running
// replica" and "fewer than desired"; a first start on its way is no line; and
// a source kept elsewhere (Slurm's view) adds its own rules to the same list.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attentionItems, summarize, withAttention, type AttentionRule } from '../../src/status/index.js';
import type { StatusFacts } from '../../src/status/types.js';
import { quietFleet } from './fleets.js';

const QUIET = summarize(quietFleet(), []);

const row = (name: string, desired: number, running: number, starting = 0, failed = 0) => ({ name, desired, running, starting, failed });
const ran = (...models: string[]) => ({ ran: new Set(models) });

function lines(facts: Partial<StatusFacts>, ctx = ran()): string[] {
  return withAttention({ ...QUIET, ...facts }, ctx).attention.map((i) => `${i.kind}: ${i.subjects.map((s) => s.name).join(',')}`);
}

test('an unplaceable model with nothing running is one line, "cannot be placed", not also "no running replica" and "fewer than desired"', () => {
  const facts = { models: [row('ghost', 1, 0)], unplaceable: [{ model: 'ghost', missing: 1, reason: 'no H200 in any fabric' }] };
  assert.equal(lines(facts, ran('ghost')), ['unplaceable: ghost']);
});

test('a model that ran and has no running replica is "no running replica" alone, not also "fewer than desired"', () => {
  assert.equal(lines({ models: [row('m', 2, 0)] }, ran('m')), ['models-down: m']);
});

test('a model short of replicas but serving is "fewer than desired"; each model is under its own most specific cause', () => {
  const facts = {
    models: [row('a', 2, 1), row('b', 1, 0), row('c', 3, 1)],
    unplaceable: [{ model: 'c', missing: 2, reason: 'needs 2 whole H100 nodes' }],
  };
  assert.equal(lines(facts, ran('a', 'b', 'c')), ['unplaceable: c', 'models-down: b', 'models-short: a']);
});

test('a first start on its way (never ran, replicas starting, none failed) needs no attention', () => {
  assert.equal(lines({ models: [row('new', 2, 0, 2)] }, ran()), []);
});

test('a first start with a failed replica, or a model that ran and is starting again, is "no running replica"', () => {
  assert.equal(lines({ models: [row('new', 2, 0, 1, 1)] }, ran()), ['models-down: new']);
  assert.equal(lines({ models: [row('back', 2, 0, 2)] }, ran('back')), ['models-down: back']);
});

test('without state.json to say which models ran, a starting model is shown: nothing is hidden on a guess', () => {
  assert.equal(
    withAttention({ ...QUIET, models: [row('new', 1, 0, 1)] }).attention.map((i) => i.kind),
    ['models-down'],
  );
});

test('a source outside the fleet model adds its rules to the same list, after the fleet’s own', () => {
  const slurm: AttentionRule = () => ({
    kind: 'slurm-node',
    text: 'node a1 is drained in Slurm',
    subjects: [{ name: 'a1', detail: 'maintenance', node: 'a1' }],
  });
  const items = attentionItems({ ...QUIET, models: [row('m', 1, 0)] }, ran('m'), [slurm]);
  assert.equal(
    items.map((i) => i.kind),
    ['models-down', 'slurm-node'],
  );
});

test.run();
