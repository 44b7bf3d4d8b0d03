// Acceptance of docs/safety.md#rollouts's rollouts, end to end over the
// simulated fleet and the real router: a canary whose stub engine answers 500
// to 20% of requests is judged by the router's served counters after its hold,
// rolled back (drained, stopped), its spec remembered and never tried again,
// rollout.failed sent once — and the old spec serves throughout. A good canary
// is then promoted, and the rest of the model rolls one replica at a time.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ask, of, settle, startLifecycleWorld, until, type LifecycleWorld } from './lifecycle-world.js';

const models = (args = '') =>
  'apiVersion: llmgw/v1\nkind: Models\nmodels:\n' +
  `  - { name: m2, weights: org/m2, engine: vllm, gpus: 1, replicas: 2, routing: least-inflight, rollout: { canary: 1, hold: 30s, maxErrorRate: 0.05 }${args ? `, args: [${args}]` : ''} }\n`;

let w: LifecycleWorld;
test.before(async () => {
  w = await startLifecycleWorld(models(), { hook: true });
  await settle(w);
});
test.after(async () => {
  await w.close();
});

/** `n` requests one after another (least-inflight takes the replicas in turn); the statuses. */
async function traffic(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await ask(w.e.world.routerPort, 'm2', `request ${i}`));
  return out;
}

test('a canary answering 500 to 20% of requests is rolled back after its hold; the old spec never stops serving; the spec is not tried again', async () => {
  const old = (await of(w, 'm2', 'running')).map((r) => r.id).sort();
  assert.is(old.length, 2);

  await w.config({ models: models('--max-model-len, "4096"') });
  const start = await w.tick();
  assert.equal(
    start.plan!.actions.map((a) => a.op),
    ['start'],
    'the canary beside the old replicas, nothing stopped',
  );
  const canary = start.plan!.actions[0]!.replica;
  assert.match(start.plan!.actions[0]!.reason, /^canary 1 of 2 for spec [0-9a-f]{8}$/);
  assert.equal(
    start.plan!.rollouts!.map((r) => r.stage),
    ['canary'],
  );
  const running = await until('the canary running', async () => (await of(w, 'm2', 'running')).find((r) => r.id === canary));
  await w.stub(running.endpoint!, { failRate: 0.2 });

  const hold = await w.tick();
  assert.equal([hold.plan!.actions, hold.plan!.rollouts![0]!.stage], [[], 'hold']);
  assert.equal(Object.keys((await w.usage()).inflight ?? {}).sort(), [...old, canary].sort(), 'the canary is routed');
  const statuses = await traffic(75);
  // Each of the three took 25 in turn; only the canary failed, on every 5th of its own.
  assert.is(statuses.filter((s) => s === 500).length, 5);
  assert.equal((await w.usage()).served![canary], { requests: 25, errors: 5 });

  const judged = await w.tick(30_000);
  const verdict = judged.plan!.rollouts![0]!;
  assert.equal([verdict.stage, verdict.next.reason], ['failed', 'error rate 20% (5 of 25 requests) above maxErrorRate 5%']);
  assert.equal(
    judged.plan!.actions.map((a) => `${a.op} ${a.replica} ${a.op === 'stop' ? a.phase : ''}`),
    [`stop ${canary} drain`],
  );
  assert.match(judged.status, /- rollout failed for 1 model: m2\n/);
  assert.match(
    judged.status,
    /- \*\*m2\*\*: rollout failed for spec [0-9a-f]{8}: error rate 20% \\\(5 of 25 requests\\\) above maxErrorRate 5%; the old spec keeps serving/,
  );
  assert.equal(judged.report!.models[0]!.rollout!.stage, 'failed');
  assert.equal((await w.state()).lifecycle!.rollouts.m2!.stage, 'failed');
  assert.equal(
    w.events.filter((e) => e.event === 'rollout.failed').map((e) => [e.subject, e.details.reason]),
    [['m2', 'error rate 20% (5 of 25 requests) above maxErrorRate 5%']],
  );
  assert.ok(
    (await traffic(6)).every((s) => s === 200),
    'out of the table at once: the old spec answers everything',
  );

  await settle(w);
  assert.equal((await of(w, 'm2')).map((r) => r.id).sort(), old, 'the canary is gone, the old replicas are the ones from before');
  const again = await w.tick(600_000);
  assert.equal(again.plan!.actions, [], 'the failed spec is not started again');
  assert.equal(again.plan!.rollouts![0]!.stage, 'failed');
  assert.is(w.events.filter((e) => e.event === 'rollout.failed').length, 1, 'sent once');
});

test('a good canary is promoted after its hold, and the rest roll one replica at a time', async () => {
  const old = (await of(w, 'm2', 'running')).map((r) => r.id).sort();
  await w.config({ models: models('--max-model-len, "8192"') });
  const start = await w.tick();
  assert.equal(
    start.plan!.actions.map((a) => a.op),
    ['start'],
  );
  const canary = start.plan!.actions[0]!.replica;
  await until('the canary running', async () => (await of(w, 'm2', 'running')).some((r) => r.id === canary));
  assert.equal((await w.tick()).plan!.rollouts![0]!.stage, 'hold');
  assert.ok((await traffic(66)).every((s) => s === 200));
  const promoted = await w.tick(30_000);
  assert.equal(promoted.plan!.rollouts![0]!.stage, 'rolling');
  assert.equal(
    promoted.plan!.actions.map((a) => (a.op === 'stop' ? a.phase : a.op)),
    ['drain'],
    'three serve where two are wanted: one old one drains',
  );
  // From here on, never more than one replica in transition: count what the agents run at every step.
  let most = 0;
  for (let i = 0; i < 20; i++) {
    const reps = await of(w, 'm2');
    most = Math.max(most, reps.length);
    const r = await w.tick();
    if (!r.plan!.rollouts && r.plan!.actions.length === 0 && !r.report!.replicas.some((x) => x.state !== 'running')) break;
    await until('the fleet to move on', async () => {
      const now = await of(w, 'm2');
      const inflight = (await w.usage()).inflight ?? {};
      return now.every((x) => x.state !== 'starting') && now.every((x) => (inflight[x.id] ?? 0) === 0);
    });
  }
  const final = await of(w, 'm2', 'running');
  assert.is(final.length, 2);
  assert.ok(
    final.every((r) => !old.includes(r.id)),
    'every old replica replaced',
  );
  assert.ok(final.some((r) => r.id === canary));
  assert.ok(most <= 3, `at most one replica beyond the two wanted (saw ${most})`);
  assert.is((await w.state()).lifecycle, undefined, 'the rollout is over: nothing left to remember');
  assert.ok((await traffic(4)).every((s) => s === 200));
});

test.run();
