// After the hold promotes (docs/safety.md#rollouts): the rolling stage's text
// counts only running new replicas, and old replicas gone meanwhile are placed
// again at once beside the one surge.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyState, type State } from '../../src/types/state.js';
import { lcConfig, lines, model, planned, rep, router, snap, specOf } from './lifecycle-fixture.js';

const c = lcConfig([model('m', { replicas: 4, rollout: { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 } })]);
const S = specOf(c, 'm');
const rolling: State = { ...emptyState(), lifecycle: { draining: {}, rollouts: { m: { spec: S, stage: 'rolling' } } } };

test('rolling with a new replica still starting waits, and its text counts only the running new ones', () => {
  const reps = [
    rep(c, 'm-0', 'n1', [0], { spec: 'oldspec1' }),
    rep(c, 'm-1', 'n1', [1], { spec: 'oldspec1' }),
    rep(c, 'm-4', 'n2', [0]),
    rep(c, 'm-5', 'n2', [1], { state: 'starting' }),
  ];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')]), rolling);
  assert.equal(plan.actions, []);
  const r = plan.rollouts![0]!;
  assert.equal([r.stage, r.text, r.next], ['rolling', `rolling to spec ${S}: 1 of 4 on the new spec`, { spec: S, stage: 'rolling' }]);
});

test('rolling short of replicas places the surge plus every missing one in the same tick', () => {
  const reps = [rep(c, 'm-0', 'n1', [0], { spec: 'oldspec1' }), rep(c, 'm-4', 'n2', [0])];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')]), rolling);
  assert.equal(lines(plan), ['start m-1 n1[1]', 'start m-2 n2[1]', 'start m-3 n1[2]']);
  assert.equal(
    plan.actions.map((a) => a.reason),
    [`rollout to spec ${S}: 2 of 4`, `rollout to spec ${S}: 2 of 4`, `rollout to spec ${S}: 2 of 4`],
  );
  assert.equal([plan.rollouts![0]!.stage, plan.rollouts![0]!.text], ['rolling', `rolling to spec ${S}: 1 of 4 on the new spec`]);
});

test.run();
