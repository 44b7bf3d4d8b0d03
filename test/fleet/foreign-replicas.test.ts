// Replica ids that nodes outside cluster.yaml still report (docs/commands.md): not
// part of the fleet, but taken, so a new replica never reuses a running one's id.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

test('ids reported by nodes outside cluster.yaml stay taken: from a report or a last report, sorted, each once', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(
    c,
    snapshot([
      up('n1', report(gpus(2), [replica('kept-0', [0])])),
      up('retired', report(gpus(2), [replica('m-3', [0]), replica('m-1', [1])])),
      down('gone', '2026-11-29T07:00:00Z', report(gpus(2), [replica('m-2', [0]), replica('m-1', [1])])),
      down('silent', null),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(f.foreignReplicaIds, ['m-1', 'm-2', 'm-3']);
  assert.equal(
    f.replicas.map((r) => r.id),
    ['kept-0'],
    "a configured node's replicas are the fleet's, never foreign",
  );
});

test('with every snapshot node in cluster.yaml there are no foreign ids', () => {
  const f = buildFleet(config([nodeConfig('n1')]), snapshot([up('n1', report(gpus(1), [replica('m-0', [0])]))]), emptyState(), NOW);
  assert.equal(f.foreignReplicaIds, []);
});

test.run();
