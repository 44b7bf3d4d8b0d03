// Capacity's fabrics (src/plan/capacity.ts) are every fabric cluster.yaml
// declares and every node's fabric, sorted by name: an unplaceable model's
// reason lists them in that order, whatever order cluster.yaml lists them in.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCapacity } from '../../src/plan/capacity.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet } from '../fixtures/index.js';

test("an unplaceable model's reason lists the fabrics by name, declared ones without nodes too, not in cluster.yaml's order", () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a', gpus: 2 },
      { name: 'b1', fabric: 'ib-b', gpus: 4 },
    ],
    models: [{ name: 'm', gpus: 8 }],
  });
  // cluster.yaml's fabrics come in file order (src/config/resolve-cluster.ts).
  fleet.config.cluster.fabrics = ['ib-c', 'ib-b', 'ib-a'];
  assert.equal(buildCapacity(fleet, new Set()).fabrics, ['ib-a', 'ib-b', 'ib-c']);
  assert.equal(planFleet(fleet, emptyState()).unplaceable, [
    { model: 'm', missing: 1, reason: 'needs 8 free GPUs on one node; most free on one node: ib-a 2, ib-b 4, ib-c 0' },
  ]);
});

test.run();
