// The engine's metrics entry on the wire (docs/protocol.md#engine-progress): a start
// request carries cluster.yaml's resolved `engines.<name>.metrics`, on rank 0 only
// (it serves the endpoint the agent reads them from).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests } from '../../src/apply/agent-requests.js';
import { fleet, pairConfig, PAIR_START } from './fixtures.js';

const METRICS = { path: '/metrics', running: 'vllm:num_requests_running', waiting: 'vllm:num_requests_waiting', progress: 'vllm:generation_tokens_total' };
test("an engine with metrics: rank 0's start carries the entry, rank 1's none", () => {
  const cfg = pairConfig();
  cfg.cluster.engines.vllm!.metrics = METRICS;
  const reqs = startRequests(PAIR_START, cfg, fleet(cfg, []));
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
  const cfg = pairConfig();
  assert.equal(
    startRequests(PAIR_START, cfg, fleet(cfg, [])).map((r) => 'metrics' in r.request),
    [false, false],
  );
});

test.run();
