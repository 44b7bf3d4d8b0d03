// A replica's port (src/plan/place-context.ts basePortOf): the lowest port from
// its engine's basePort (cluster.yaml engines.<name>.basePort, default 8000)
// that is free on every node it lands on.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { basePortOf } from '../../src/plan/place-context.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { ENGINE, makeFleet } from '../fixtures/index.js';

test("replicas listen from their engine's basePort up, not from 8000, when cluster.yaml sets another", () => {
  const fleet = makeFleet({ nodes: [{ name: 'a1', gpus: 2 }], models: [{ name: 'm', replicas: 2 }] });
  fleet.config.cluster.engines = { vllm: { ...ENGINE, basePort: 9000 } };
  assert.is(basePortOf(fleet.config.models[0]!, fleet), 9000);
  const starts = planFleet(fleet, emptyState()).actions.filter((a): a is StartAction => a.op === 'start');
  assert.equal(
    starts.map((s) => [s.replica, s.port, s.placement]),
    [
      ['m-0', 9000, [{ node: 'a1', gpus: [0] }]],
      ['m-1', 9001, [{ node: 'a1', gpus: [1] }]],
    ],
  );
});

test.run();
