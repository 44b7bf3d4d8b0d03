// The model's liveness.stallAfter on the wire (docs/protocol.md#engine-progress): the
// agent judges a replica stalled after the model's stallAfter, not the built-in 60 s,
// so a start with metrics carries `stallAfterSeconds` when models.yaml shortens or
// lengthens it, and nothing (absent means 60) when it is the default.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests } from '../../src/apply/agent-requests.js';
import { LIVENESS_DEFAULTS, type ModelConfig } from '../../src/types/config.js';
import type { StartAction } from '../../src/types/plan.js';
import { config, fleet, node } from './fixtures.js';

const METRICS = { path: '/metrics', running: 'vllm:num_requests_running', waiting: 'vllm:num_requests_waiting', progress: 'vllm:generation_tokens_total' };
const base: ModelConfig = {
  name: 'pair',
  weights: 'org/pair',
  engine: 'vllm',
  gpus: 4,
  nodes: 2,
  replicas: 1,
  priority: 0,
  args: [],
  index: 3,
  drainTimeoutMs: 600_000,
  stopGraceMs: 30_000,
  check: null,
  rollout: null,
};
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

function requests(model: ModelConfig, metrics = true) {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(model);
  if (metrics) cfg.cluster.engines.vllm!.metrics = METRICS;
  return startRequests(action, cfg, fleet(cfg, [])).map((r) => r.request);
}

test("a model's stallAfter of 5s reaches rank 0's start as stallAfterSeconds 5, rank 1's not at all", () => {
  const reqs = requests({ ...base, liveness: { ...LIVENESS_DEFAULTS, stallAfterMs: 5_000 } });
  assert.equal(
    reqs.map((r) => r.stallAfterSeconds),
    [5, undefined],
  );
  assert.not.ok('stallAfterSeconds' in reqs[1]!);
});

test('a stallAfter under a second is sent as a fraction, not rounded to 0 or 1', () => {
  assert.is(requests({ ...base, liveness: { ...LIVENESS_DEFAULTS, stallAfterMs: 1_500 } })[0]!.stallAfterSeconds, 1.5);
});

test('the built-in 60 s, or no liveness at all, sends no stallAfterSeconds: older agents see the request they always did', () => {
  for (const model of [base, { ...base, liveness: { ...LIVENESS_DEFAULTS } }]) assert.not.ok('stallAfterSeconds' in requests(model)[0]!);
});

test('an engine without metrics sends no stallAfterSeconds: there is no progress to judge', () => {
  assert.not.ok('stallAfterSeconds' in requests({ ...base, liveness: { ...LIVENESS_DEFAULTS, stallAfterMs: 5_000 } }, false)[0]!);
});

test.run();
