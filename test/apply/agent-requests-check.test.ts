// The answer check on the wire (docs/protocol.md#the-answer-check): what a
// start request carries of models.yaml's `check`, and which rank carries it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests, wireCheck } from '../../src/apply/agent-requests.js';
import type { CheckConfig, ModelConfig } from '../../src/types/config.js';
import type { StartAction } from '../../src/types/plan.js';
import { config, fleet, node } from './fixtures.js';
import { model } from '../fixtures/index.js';

test('a case-insensitive check arrives as the pattern and the flag "i"; the timeout in whole seconds, rounded up', () => {
  assert.equal(wireCheck({ prompt: 'What is 2+2?', expect: { source: '\\b4\\b', flags: 'i' }, timeoutMs: 1_500 }), {
    prompt: 'What is 2+2?',
    expect: '\\b4\\b',
    flags: 'i',
    timeoutSeconds: 2,
  });
});

test('a case-sensitive check has no flags key at all; 30 s stays 30', () => {
  assert.equal(wireCheck({ prompt: 'Say OK', expect: { source: 'OK', flags: '' }, timeoutMs: 30_000 }), { prompt: 'Say OK', expect: 'OK', timeoutSeconds: 30 });
});

const CHECK: CheckConfig = { prompt: 'Say OK', expect: { source: 'OK', flags: '' }, timeoutMs: 20_000 };
const pair = (check: CheckConfig | null): ModelConfig => model('pair', { gpus: 4, nodes: 2, index: 3, check });
const action: StartAction = {
  op: 'start',
  replica: 'pair-0',
  model: 'pair',
  port: 8002,
  weights: 'none',
  reason: 'r',
  placement: [
    { node: 'g2', gpus: [4, 5, 6, 7] },
    { node: 'g1', gpus: [0, 1, 2, 3] },
  ],
};

test('only rank 0, which serves the endpoint, is asked for an answer; the other ranks carry no check', () => {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(pair(CHECK));
  const reqs = startRequests(action, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => [r.node, r.request.rank, r.request.check]),
    [
      ['g2', 0, { prompt: 'Say OK', expect: 'OK', timeoutSeconds: 20 }],
      ['g1', 1, undefined],
    ],
  );
  assert.not.ok('check' in reqs[1]!.request, 'no check key on rank 1');
});

test('a model without a check sends no check key on any rank', () => {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(pair(null));
  const reqs = startRequests(action, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => 'check' in r.request),
    [false, false],
  );
});

test.run();
