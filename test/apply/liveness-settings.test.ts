// docs/protocol.md `router endpoints`: the reconciler sends a model's liveness settings
// with the table when models.yaml (or defaults.liveness) changes them, and none when
// they are the built-in ones, so the routers' own flags stay in force.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { endpointTable } from '../../src/apply/router-tables.js';
import { buildFleet } from '../../src/fleet/index.js';
import { LIVENESS_DEFAULTS } from '../../src/types/config.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, model, nodeConfig, snapshot } from '../fixtures/index.js';

test('settings carry a changed liveness in milliseconds; built-in values send none', () => {
  const fast = { ...LIVENESS_DEFAULTS, consecutiveErrors: 2, stallAfterMs: 5_000, ejectForMs: 1_000 };
  const c = config([nodeConfig('n1')], {}, [model('a', { liveness: fast }), model('b', { liveness: { ...LIVENESS_DEFAULTS } }), model('c')]);
  const t = endpointTable(c, buildFleet(c, snapshot([]), emptyState(), NOW), new Set());
  assert.equal(t.settings, { a: { consecutiveErrors: 2, stallAfterMs: 5_000, ejectForMs: 1_000 } });
  const plain = config([nodeConfig('n1')], {}, [model('c')]);
  assert.is('settings' in endpointTable(plain, buildFleet(plain, snapshot([]), emptyState(), NOW), new Set()), false);
});

test.run();
