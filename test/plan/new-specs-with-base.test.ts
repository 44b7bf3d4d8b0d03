// newSpecs with REF's config (--base): every model whose spec REF does not
// have is listed once, sorted by model name, whatever the plan does
// (docs/security.md).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSpecs } from '../../src/plan/new-specs.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Config } from '../../src/types/config.js';
import type { Plan } from '../../src/types/plan.js';
import { ENGINE, makeConfig, makeFleet, type ModelIn } from '../fixtures/index.js';

const EMPTY_PLAN: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
const NODES = [{ name: 'a1' }];

const configWith = (models: ModelIn[]): Config => makeConfig({ nodes: NODES, models });
const specOf = (config: Config, index: number) => replicaSpec(config.models[index]!, ENGINE);

test('with a base, changed and new models are listed sorted by name, not in models.yaml order; unchanged ones are not', () => {
  const base = configWith([{ name: 'zeta' }, { name: 'alpha' }, { name: 'same' }]);
  const pr = configWith([{ name: 'zeta', args: ['--z'] }, { name: 'same' }, { name: 'alpha', args: ['--a'] }, { name: 'mid' }]);
  const fleet = makeFleet({ nodes: NODES, models: [] });
  assert.equal(newSpecs(pr, base, fleet, EMPTY_PLAN), [
    { model: 'alpha', spec: specOf(pr, 2), argv: ['vllm', 'serve', '{weightsPath}', '--a'] },
    { model: 'mid', spec: specOf(pr, 3), argv: ['vllm', 'serve', '{weightsPath}'] },
    { model: 'zeta', spec: specOf(pr, 0), argv: ['vllm', 'serve', '{weightsPath}', '--z'] },
  ]);
});

test('with a base, two new models in reverse name order come out sorted by name', () => {
  const pr = configWith([{ name: 'b' }, { name: 'a' }]);
  const fleet = makeFleet({ nodes: NODES, models: [] });
  assert.equal(
    newSpecs(pr, configWith([]), fleet, EMPTY_PLAN).map((s) => s.model),
    ['a', 'b'],
  );
});

test('a model REF runs on an engine REF does not declare counts as absent from REF: its spec is new', () => {
  const base = configWith([{ name: 'm' }]);
  base.models[0]!.engine = 'sglang';
  const pr = configWith([{ name: 'm' }]);
  const fleet = makeFleet({ nodes: NODES, models: [] });
  assert.equal(newSpecs(pr, base, fleet, EMPTY_PLAN), [{ model: 'm', spec: specOf(pr, 0), argv: ['vllm', 'serve', '{weightsPath}'] }]);
});

test('entries that share a model name keep models.yaml order (the sort by name is stable)', () => {
  // parseConfig refuses a duplicate name; newSpecs must still not reorder ties.
  const pr = configWith([
    { name: 'm', args: ['--first'] },
    { name: 'm', args: ['--second'] },
  ]);
  const fleet = makeFleet({ nodes: NODES, models: [] });
  assert.equal(
    newSpecs(pr, configWith([]), fleet, EMPTY_PLAN).map((s) => s.argv.at(-1)),
    ['--first', '--second'],
  );
});

test.run();
