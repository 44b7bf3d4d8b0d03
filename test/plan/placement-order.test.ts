// The order models are placed in (docs/placement.md step 3): priority high
// first, then size (nodes x gpus) large first, then models.yaml order, whatever
// order the list arrives in.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { placementOrder } from '../../src/plan/placement-order.js';
import { planModel as model } from '../fixtures/index.js';

test('placement order: priority, then nodes x gpus (2x8 before 1x8), then models.yaml index, from a shuffled list', () => {
  const models = [
    model({ name: 'c', priority: 0, gpus: 1 }, 2),
    model({ name: 'a', priority: 0, gpus: 1 }, 0),
    model({ name: 'big', priority: 0, gpus: 8, nodes: 2 }, 5),
    model({ name: 'b', priority: 0, gpus: 1 }, 1),
    model({ name: 'wide', priority: 0, gpus: 8 }, 4),
    model({ name: 'vip', priority: 5, gpus: 1 }, 3),
  ];
  assert.equal(
    placementOrder(models).map((m) => m.name),
    ['vip', 'big', 'wide', 'a', 'b', 'c'],
  );
  assert.equal(
    models.map((m) => m.name),
    ['c', 'a', 'big', 'b', 'wide', 'vip'],
    'the list given is not reordered in place',
  );
});

test.run();
