// The one projection of a plan onto the fleet (src/plan/project-fleet.ts):
// what it changes, what it leaves alone, and that the snapshot it commits
// rebuilds to the very same fleet model — the property that lets a PR's
// `plan --base` start from the committed snapshot and see what the tick saw.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectedEffects } from '../../src/apply/schedule.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { NO_EFFECTS, projectFleet, projectedSnapshot } from '../../src/plan/project-fleet.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Config } from '../../src/types/config.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { StartAction, StopAction } from '../../src/types/plan.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { ROOT } from '../helpers/golden.js';
import { ENGINE, NOW, makeConfig } from '../fixtures/index.js';
import { eightGpus as report, projectionSnapshot } from './projection-world.js';

/** Everything the fleet model says, as plain data (its maps and config left out). */
function facts(f: Fleet): unknown {
  return {
    now: f.now,
    observedAt: f.observedAt,
    routersAnswered: f.routersAnswered,
    foreign: f.foreignReplicaIds,
    nodes: f.nodes.map((n) => ({ ...n, config: n.config.name, holds: [...n.holds].sort(), usedPorts: [...n.usedPorts].sort(), report: n.report })),
    replicas: f.replicas,
  };
}

/** The projection snapshot, with a model of two ranks of 4 GPUs. */
function smallWorld(): { config: Config; snapshot: Snapshot } {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'm', gpus: 4, nodes: 2 }] });
  return { config, snapshot: projectionSnapshot() };
}

const stopOld: StopAction = { op: 'stop', replica: 'old-0', model: 'old', placement: [{ node: 'a1', gpus: [0] }], reason: 'not in models.yaml', waitFor: [] };
const startM: StartAction = {
  op: 'start',
  replica: 'm-0',
  model: 'm',
  port: 8000,
  placement: [
    { node: 'a1', gpus: [0, 1, 2, 3] },
    { node: 'a2', gpus: [0, 1, 2, 3] },
  ],
  weights: 'none',
  reason: '1 of 1 replica missing',
};

test('a started replica is starting on every node of its placement, with its GPUs, port, spec and the head URL; a stopped one is gone', () => {
  const { config, snapshot } = smallWorld();
  const fleet = buildFleet(config, snapshot, emptyState(), NOW);
  const after = projectFleet(fleet, { started: [startM], stopped: [stopOld] });
  const spec = replicaSpec(config.models[0]!, ENGINE);
  assert.equal(after.nodeByName.get('a1')!.report!.replicas, [
    { id: 'm-0', model: 'm', gpus: [0, 1, 2, 3], state: 'starting', endpoint: 'http://a1:8000', port: 8000, rank: 0, spec },
  ]);
  assert.equal(
    after.nodeByName.get('a2')!.report!.replicas.map((r) => [r.id, r.rank, r.endpoint]),
    [['m-0', 1, 'http://a1:8000']],
  );
  assert.equal(
    after.replicas.map((r) => [r.id, r.state, r.nodes]),
    [
      ['m-0', 'starting', ['a1', 'a2']],
      ['x-0', 'running', ['a3']],
    ],
  );
  assert.equal(
    after.nodeByName.get('a1')!.gpus.map((g) => g.bucket),
    ['used', 'used', 'used', 'used', 'free', 'free', 'free', 'free'],
  );
  assert.is(after.nodeByName.get('a2')!.freeWholeClass, null);
  assert.is(after.nodeByName.get('a3'), fleet.nodeByName.get('a3'), 'an unreachable node is not touched');
  // The fleet handed in is not changed.
  assert.equal(
    fleet.replicas.map((r) => r.id),
    ['old-0', 'x-0'],
  );
  assert.is(fleet.nodeByName.get('a1')!.report!.replicas[0]!.id, 'old-0');
});

test('no effects: the very fleet handed in', () => {
  const { config, snapshot } = smallWorld();
  const fleet = buildFleet(config, snapshot, emptyState(), NOW);
  assert.is(projectFleet(fleet, NO_EFFECTS), fleet);
});

test('a stop of a replica with a rank on a lost node removes only the ranks on nodes that answered', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }], models: [{ name: 'm', gpus: 8, nodes: 2 }] });
  const rank = (r: number) => ({ id: 'm-0', model: 'm', gpus: [0, 1, 2, 3, 4, 5, 6, 7], state: 'running' as const, port: 8000, rank: r });
  const snapshot: Snapshot = {
    version: 1,
    observedAt: NOW,
    nodes: [
      { name: 'a1', reachable: true, report: report([rank(0)]) },
      { name: 'a2', reachable: false, error: 'timeout', unreachableSince: '2026-11-29T06:00:00Z', lastReport: report([rank(1)]) },
    ],
    routers: [],
  };
  const fleet = buildFleet(config, snapshot, emptyState(), NOW);
  const stop: StopAction = {
    op: 'stop',
    replica: 'm-0',
    model: 'm',
    placement: [
      { node: 'a1', gpus: rank(0).gpus },
      { node: 'a2', gpus: rank(1).gpus },
    ],
    reason: 'lost',
    waitFor: [],
  };
  const after = projectFleet(fleet, { started: [], stopped: [stop] });
  assert.equal(after.nodeByName.get('a1')!.replicas, []);
  assert.equal(
    after.replicas.map((r) => [r.id, r.nodes, r.lost]),
    [['m-0', ['a2'], true]],
  );
});

for (const example of ['demo', 'large']) {
  test(`examples/${example}: the committed snapshot of a projected plan rebuilds to the projected fleet, field for field`, async () => {
    const dir = join(ROOT, 'examples', example);
    const loaded = await loadConfig(dir, { env: {}, strictEnv: false });
    assert.ok(loaded.ok);
    const snapshot = JSON.parse(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8')) as Snapshot;
    const fleet = buildFleet(loaded.config, snapshot, emptyState(), NOW);
    const plan = planFleet(fleet, emptyState());
    const effects = expectedEffects(plan, fleet);
    assert.ok(effects.started.length > 0, 'the example plan starts something');
    const after = projectFleet(fleet, effects);
    const rebuilt = buildFleet(loaded.config, projectedSnapshot(snapshot, after), emptyState(), NOW);
    assert.equal(facts(rebuilt), facts(after));
    // And the projection is the fleet a second plan sees: nothing of it is proposed again.
    const again = planFleet(after, emptyState());
    const started = new Set(effects.started.map((a) => a.model));
    assert.not.ok(again.actions.some((a) => a.op === 'start' && started.has(a.model) && !plan.unplaceable.some((u) => u.model === a.model)));
  });
}

test.run();
