// docs/placement.md#stalled-and-ejected-replicas: status JSON and "Needs attention" list a
// stalled replica with its since-time, and replica.stalled fires once per transition.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { detectEvents } from '../../src/notify/events.js';
import { summarize } from '../../src/status/summarize.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const SINCE = '2026-11-29T07:58:30Z';

function fleetWith(stalledSince?: string) {
  const c = config([nodeConfig('n1')], {}, [model('m', { gpus: 1, replicas: 1 })]);
  const load = { running: 2, waiting: 0, progress: 7, ...(stalledSince ? { stalledSince } : {}) };
  return buildFleet(c, snapshot([up('n1', report(gpus(2), [replica('m-0', [0], { load })]))]), emptyState(), NOW);
}

test('a stalled replica is listed in status JSON and under Needs attention with its since-time', () => {
  const s = summarize(fleetWith(SINCE), []);
  assert.equal(s.stuckReplicas, [{ replica: 'm-0', model: 'm', nodes: ['n1'], kind: 'stalled', since: SINCE }]);
  const item = s.attention.find((a) => a.kind === 'replicas-stuck');
  assert.equal(item?.subjects, [{ name: 'm-0', detail: `stalled since ${SINCE}`, model: 'm' }]);
  assert.is(summarize(fleetWith(), []).stuckReplicas, undefined);
});

test('replica.stalled fires once while the replica stays stalled, and progress closes it', () => {
  const input = (fleet: ReturnType<typeof fleetWith>) => ({ cluster: 'c', fleet, plan: null, applyFailures: [], configErrors: null, now: NOW });
  const first = detectEvents(emptyState(), input(fleetWith(SINCE)));
  assert.equal(
    first.events.filter((e) => e.event === 'replica.stalled').map((e) => [e.subject, e.details.stalledSince]),
    [['m-0', SINCE]],
  );
  const again = detectEvents(first.state, input(fleetWith(SINCE)));
  assert.equal(
    again.events.filter((e) => e.event === 'replica.stalled'),
    [],
  );
  const moving = detectEvents(again.state, input(fleetWith()));
  assert.is(moving.state.notified['replica.stalled/m-0'], undefined);
  const stalledAgain = detectEvents(moving.state, input(fleetWith(SINCE)));
  assert.is(stalledAgain.events.filter((e) => e.event === 'replica.stalled').length, 1);
});

test.run();
