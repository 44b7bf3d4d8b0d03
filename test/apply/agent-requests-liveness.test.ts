// docs/protocol.md#engine-progress: a start carries the model's liveness.stallAfter as
// `stallAfterSeconds`, on rank 0 only (the rank whose engine metrics the agent
// reads), so the agent calls a replica stalled after the same time the routers do.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests } from '../../src/apply/agent-requests.js';
import { LIVENESS_DEFAULTS } from '../../src/types/config.js';
import type { StartAction } from '../../src/types/plan.js';
import { config, fleet, node } from './fixtures.js';
import { defined } from '../helpers/defined.js';

const start = (model: string, nodes: string[]): StartAction => ({
  op: 'start',
  replica: `${model}-0`,
  model,
  port: 8002,
  weights: 'none',
  reason: 'r',
  placement: nodes.map((n) => ({ node: n, gpus: [0, 1, 2, 3, 4, 5, 6, 7] })),
});

function withLiveness(stallAfterMs: number | null) {
  const cfg = config([node('g1'), node('g2')]);
  if (stallAfterMs !== null) cfg.models = cfg.models.map((m) => ({ ...m, liveness: { ...LIVENESS_DEFAULTS, stallAfterMs } }));
  return cfg;
}

test("a model's stallAfter of 90s reaches the agent as stallAfterSeconds 90 on its start", () => {
  const cfg = withLiveness(90_000);
  const [r] = startRequests(start('llama', ['g1']), cfg, fleet(cfg, []));
  assert.is(r?.request.stallAfterSeconds, 90);
});

test('a shortened stallAfter keeps its fraction of a second: 1500 ms is 1.5', () => {
  const cfg = withLiveness(1_500);
  assert.is(startRequests(start('llama', ['g1']), cfg, fleet(cfg, []))[0]?.request.stallAfterSeconds, 1.5);
});

test("a multi-node replica: rank 0's start carries stallAfterSeconds, rank 1's none", () => {
  const cfg = withLiveness(20_000);
  const reqs = startRequests(start('big', ['g2', 'g1']), cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => [r.node, r.request.rank, r.request.stallAfterSeconds]),
    [
      ['g2', 0, 20],
      ['g1', 1, undefined],
    ],
  );
});

test('a model without liveness settings sends none: the agent keeps its built-in 60 s', () => {
  const cfg = withLiveness(null);
  assert.is('stallAfterSeconds' in defined(startRequests(start('llama', ['g1']), cfg, fleet(cfg, []))[0]).request, false);
});

test.run();
