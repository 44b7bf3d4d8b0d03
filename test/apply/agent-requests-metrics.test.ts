// The engine's metrics entry on the wire (docs/protocol.md#engine-progress): a start
// request carries cluster.yaml's resolved `engines.<name>.metrics`, on rank 0 only
// (it serves the endpoint the agent reads them from).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests } from '../../src/apply/agent-requests.js';
import type { ModelConfig } from '../../src/types/config.js';
import type { StartAction } from '../../src/types/plan.js';
import { config, fleet, node } from './fixtures.js';

const METRICS = { path: '/metrics', running: 'vllm:num_requests_running', waiting: 'vllm:num_requests_waiting', progress: 'vllm:generation_tokens_total' };
const pair: ModelConfig = {
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

test("an engine with metrics: rank 0's start carries the entry, rank 1's none", () => {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(pair);
  cfg.cluster.engines.vllm!.metrics = METRICS;
  const reqs = startRequests(action, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => [r.node, r.request.rank, r.request.metrics]),
    [
      ['g2', 0, METRICS],
      ['g1', 1, undefined],
    ],
  );
  assert.not.ok('metrics' in reqs[1]!.request);
});

test('an engine without metrics sends no metrics key', () => {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(pair);
  assert.equal(
    startRequests(action, cfg, fleet(cfg, [])).map((r) => 'metrics' in r.request),
    [false, false],
  );
});

test.run();
