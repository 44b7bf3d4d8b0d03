// newSpecs without REF's config (no --base, or REF's config is invalid):
// the argv a reviewer must read is that of every model this plan starts
// whose spec no replica in the fleet runs yet (docs/security.md). Plans come
// from the real planner on small hand-built fleets.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSpecs } from '../../src/plan/new-specs.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Config } from '../../src/types/config.js';
import type { Plan, StartAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { ENGINE, makeFleet, oneRank, type ModelIn, type ReplicaSpecIn } from '../fixtures/index.js';

/** The spec models.yaml gives `name` in `config`. */
const specOf = (config: Config, name: string) =>
  replicaSpec(
    config.models.find((m) => m.name === name)!,
    ENGINE,
  );

/** A fleet of one 8-GPU node a1 with `models` and `replicas` on it. */
const onA1 = (models: ModelIn[], replicas: ReplicaSpecIn[] = []) => makeFleet({ nodes: [{ name: 'a1' }], replicas, models });
/** Each action of `plan` as `op replica`. */
const ops = (plan: ReturnType<typeof planFleet>) => plan.actions.map((a) => `${a.op} ${a.replica}`);

test('without a base, a model the plan starts whose spec no replica runs yet shows its argv, per-replica placeholders as written', () => {
  const fleet = onA1([{ name: 'm', gpus: 2, args: ['--served-model-name={model}', '--tp={gpus}', '--port={port}'] }]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(ops(plan), ['start m-0']);
  assert.equal(newSpecs(fleet.config, null, fleet, plan), [
    { model: 'm', spec: specOf(fleet.config, 'm'), argv: ['vllm', 'serve', '{weightsPath}', '--served-model-name=m', '--tp=2', '--port={port}'] },
  ]);
});

test('without a base, starting another replica of a spec the fleet already runs shows no argv', () => {
  const fleet = onA1([{ name: 'm', replicas: 2 }], [oneRank('m-0', 'a1', [0])]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(ops(plan), ['start m-1']);
  assert.equal(newSpecs(fleet.config, null, fleet, plan), []);
});

test('without a base, a model the plan only stops (a surplus replica) shows no argv, even though no replica runs its spec', () => {
  // Both replicas were started by hand or by an older agent (no spec reported):
  // kept as they are, and the one too many is stopped. Nothing starts.
  const fleet = onA1([{ name: 'm', replicas: 1 }], [oneRank('m-0', 'a1', [0], { spec: null }), oneRank('m-1', 'a1', [1], { spec: null, port: 8001 })]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(ops(plan), ['stop m-1']);
  assert.equal(newSpecs(fleet.config, null, fleet, plan), []);
});

test('without a base, only the started model is listed when the same plan stops another model with a new spec', () => {
  // `old` is scaled to 0 replicas and its replica reported no spec, so no
  // replica runs old's spec either: its stop must not list that spec.
  const fleet = onA1([{ name: 'new' }, { name: 'old', replicas: 0 }], [oneRank('old-0', 'a1', [0], { spec: null })]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(ops(plan).sort(), ['start new-0', 'stop old-0']);
  assert.equal(newSpecs(fleet.config, null, fleet, plan), [{ model: 'new', spec: specOf(fleet.config, 'new'), argv: ['vllm', 'serve', '{weightsPath}'] }]);
});

test('a model whose engine the cluster does not declare is skipped (no argv can be shown for it), the others still listed', () => {
  const fleet = onA1([{ name: 'm' }]);
  const plan = planFleet(fleet, emptyState());
  // As if the plan also started `x`, a model on an engine cluster.yaml lacks
  // (parseConfig refuses one; newSpecs must not throw on it).
  const config: Config = { ...fleet.config, models: [...fleet.config.models, { ...fleet.config.models[0]!, name: 'x', engine: 'sglang', index: 1 }] };
  const withX: Plan = { ...plan, actions: [...plan.actions, { ...(plan.actions[0] as StartAction), replica: 'x-0', model: 'x' }] };
  assert.equal(newSpecs(config, null, fleet, withX), [{ model: 'm', spec: specOf(fleet.config, 'm'), argv: ['vllm', 'serve', '{weightsPath}'] }]);
});

test.run();
