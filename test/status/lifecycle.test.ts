// What STATUS.md, `llmgw status` and status JSON say about the lifecycle
// (docs/status.md#what-it-shows): draining replicas, rollouts, failing checks,
// failed replicas with their error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderStatusMarkdown, renderStatusText } from '../../src/views/status/index.js';
import { statusOf } from '../../src/tick/render.js';
import type { State } from '../../src/types/state.js';
import { at, drainingState, lcConfig, model, planned, rep, router, snap, specOf, T0 } from '../plan/lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m1', { replicas: 1 }), model('m2', { replicas: 2, rollout })]);
const S = specOf(c, 'm2');
const reps = [
  rep(c, 'm1-0', 'n1', [0], { check: { ok: false, at: T0, error: 'expected /ready/i, got "Hello <b>"' } }),
  rep(c, 'm1-1', 'n1', [1]),
  rep(c, 'm1-2', 'n1', [2], { state: 'failed', error: 'answer check failed: no answer within 10 s' }),
  rep(c, 'm2-0', 'n2', [0], { spec: 'oldspec1' }),
  rep(c, 'm2-1', 'n2', [1], { spec: 'oldspec1' }),
];
const state: State = {
  ...drainingState({ 'm1-1': { since: T0 } }),
  lifecycle: {
    draining: { 'm1-1': { since: T0, reason: 'surplus (2 of 1)', outOfTablesAt: T0 } },
    rollouts: { m2: { spec: S, stage: 'failed', reason: 'error rate 20% (4 of 20 requests) above maxErrorRate 5%', failedAt: T0 } },
  },
};

function report() {
  const { fleet } = planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-1': 2 } })], at(60)), state);
  return statusOf(fleet, state);
}

test('status JSON: draining replicas and counts, the failed rollout on its model, failing checks and failed replicas with their error', () => {
  const r = report();
  assert.equal(
    r.replicas.map((x) => [x.id, x.state, x.error ?? null, x.check ?? null]),
    [
      ['m1-0', 'running', null, { ok: false, error: 'expected /ready/i, got "Hello <b>"' }],
      ['m1-1', 'draining', null, null],
      ['m1-2', 'failed', 'answer check failed: no answer within 10 s', null],
      ['m2-0', 'running', null, null],
      ['m2-1', 'running', null, null],
    ],
  );
  assert.equal(r.models, [
    { name: 'm1', desired: 1, running: 1, starting: 0, failed: 1, draining: 1 },
    {
      name: 'm2',
      desired: 2,
      running: 2,
      starting: 0,
      failed: 0,
      rollout: {
        spec: S,
        stage: 'failed',
        text: `rollout failed for spec ${S}: error rate 20% (4 of 20 requests) above maxErrorRate 5%; the old spec keeps serving`,
      },
    },
  ]);
});

test('STATUS.md: needs attention names the failed replica, the failing check and the failed rollout, with their errors; the models section lists drains and rollouts; node text escaped', () => {
  const md = renderStatusMarkdown(report());
  assert.match(md, /- 1 replica failed: m1-2 \(on n1: answer check failed: no answer within 10 s\)\n/);
  assert.match(md, /- 1 replica failing its answer check \(not routed\): m1-0 \(on n1: expected \/ready\/i, got "Hello &lt;b>"\)\n/);
  assert.match(md, /- rollout failed for 1 model: m2\n/);
  assert.match(md, /2 models, 5 replicas: 3 running, 0 starting, 1 failed, 1 draining\./);
  assert.match(md, /- Draining before a stop \(out of every router, stopped once none has a request in flight for it, or at drainTimeout\): m1-1\n/);
  assert.ok(
    md.includes(`- **m2**: rollout failed for spec ${S}: error rate 20% \\(4 of 20 requests\\) above maxErrorRate 5%; the old spec keeps serving\n`),
    md,
  );
  assert.not.match(md, /Hello <b>/);
});

test('the terminal shows the same, without Markdown', () => {
  const text = renderStatusText(report(), { color: false });
  assert.match(text, /  Draining before a stop .*: m1-1\n/);
  assert.match(text, /\n  m2: rollout failed for spec \w+: error rate 20% \(4 of 20 requests\)/);
  assert.match(text, /  ! 1 replica failing its answer check \(not routed\): m1-0 \(on n1: expected \/ready\/i, got "Hello <b>"\)\n/);
  assert.match(text, /  ! rollout failed for 1 model: m2\n/);
});

test.run();
