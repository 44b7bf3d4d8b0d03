// The rolling stage (docs/safety.md#rollouts) with an old replica on a node that
// does not answer: it still counts as serving, but no stop can reach it, so the
// step neither stops nor surges until the node answers or is lost for good.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyState, type State } from '../../src/types/state.js';
import { lcConfig, lines, model, planned, rep, router, snap, specOf } from './lifecycle-fixture.js';

const c = lcConfig([model('m', { replicas: 2, rollout: { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 } })]);
const S = specOf(c, 'm');
/** A minute after the fixture's node stopped answering: unreachable, not yet lost (its replicas are kept). */
const JUST_AFTER = '2026-11-28T00:01:00Z';
const rolling: State = { ...emptyState(), lifecycle: { draining: {}, rollouts: { m: { spec: S, stage: 'rolling' } } } };

test('rolling with every new replica running and the only old one on an unreachable node: nothing to stop, nothing to surge, the step waits', () => {
  const reps = [rep(c, 'm-0', 'n1', [0], { spec: 'oldspec1' }), rep(c, 'm-2', 'n2', [0]), rep(c, 'm-3', 'n2', [1])];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')], JUST_AFTER, {}, ['n1']), rolling);
  assert.equal(lines(plan), []);
  const r = plan.rollouts![0]!;
  assert.equal([r.stage, r.text, r.next], ['rolling', `rolling to spec ${S}: 2 of 2 on the new spec`, { spec: S, stage: 'rolling' }]);
});

test('the same step with the old replica’s node answering stops that replica, replaced by the new spec', () => {
  const reps = [rep(c, 'm-0', 'n1', [0], { spec: 'oldspec1' }), rep(c, 'm-2', 'n2', [0]), rep(c, 'm-3', 'n2', [1])];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')]), rolling);
  assert.equal(
    plan.actions.map((a) => [a.op, a.replica, a.reason]),
    [['stop', 'm-0', `replaced by spec ${S} (rollout)`]],
  );
});

test.run();
