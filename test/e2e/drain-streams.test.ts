// Acceptance of docs/safety.md#stopping-a-replica's drain, end to end over the simulated
// fleet and the real router: 50 streaming requests of ~5 s each in flight
// while models.yaml drops a model from 4 replicas to 1, and while its spec
// rolls. Every stream completes intact — all its tokens, then [DONE] — because
// no replica is stopped (SIGTERM makes a stub engine close every connection
// at once) before every router reports nothing in flight for it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StopAction } from '../../src/types/plan.js';
import { of, settle, startLifecycleWorld, stream, until, type LifecycleWorld, type StreamResult } from './lifecycle-world.js';

const models = (replicas: number, args = '') =>
  `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: ${replicas}, routing: least-inflight${args ? `, args: [${args}]` : ''} }\n`;
/** Ten tokens, 500 ms apart: a stream of about 4.5 s. */
const ANSWER = 'one two three four five six seven eight nine ten';
const STREAMS = 50;

let w: LifecycleWorld;
test.before(async () => {
  // Stopping 3 of 4 at once is what this test is about: the safety rule would refuse it.
  w = await startLifecycleWorld(models(4), { cluster: (doc) => (doc.safety.maxStopFraction = 1) });
  await settle(w);
});
test.after(async () => {
  await w.close();
});

async function slowEngines(ids?: string[]): Promise<void> {
  for (const r of await of(w, 'm1', 'running')) if (!ids || ids.includes(r.id)) await w.stub(r.endpoint!, { tokenDelayMs: 500, answer: ANSWER });
}

function streams(): Promise<StreamResult>[] {
  return Array.from({ length: STREAMS }, (_, i) => stream(w.e.world.routerPort, 'm1', `stream ${i}`));
}

async function inFlight(ids: string[]): Promise<number> {
  const inflight = (await w.usage()).inflight ?? {};
  return ids.reduce((n, id) => n + (inflight[id] ?? 0), 0);
}

function intact(results: StreamResult[]): void {
  const bad = results.filter((r) => r.status !== 200 || r.text !== ANSWER || !r.done || r.chunks !== 10);
  assert.equal(bad, [], `${bad.length} of ${results.length} streams cut short`);
}

const stops = (r: { plan: { actions: { op: string }[] } | null }) => (r.plan?.actions ?? []).filter((a): a is StopAction => a.op === 'stop');

test('50 streams in flight while models.yaml drops the model from 4 replicas to 1: every stream completes intact', async () => {
  const four = (await of(w, 'm1', 'running')).map((r) => r.id);
  assert.is(four.length, 4);
  await slowEngines();
  const pending = streams();
  await until('every stream in flight on the router', async () => (await inFlight(four)) === STREAMS);

  await w.config({ models: models(1) });
  const drain = await w.tick();
  assert.equal(
    stops(drain).map((s) => s.phase),
    ['drain', 'drain', 'drain'],
  );
  const leaving = stops(drain).map((s) => s.replica);
  assert.equal(
    drain.report!.replicas.filter((r) => r.state === 'draining').map((r) => r.id),
    leaving,
  );
  assert.match(drain.status, /- Draining before a stop \(out of every router/);
  assert.equal(drain.report!.models[0], { name: 'm1', desired: 1, running: 1, starting: 0, failed: 0, draining: 3 });
  assert.equal(Object.keys((await w.state()).lifecycle!.draining), leaving);

  // While their streams run, the routers say so, and ticks wait: no stop but of a replica drained.
  const waiting = await w.tick();
  assert.equal(
    stops(waiting).filter((s) => !s.reason.endsWith('; drained')),
    [],
  );
  await until('the draining replicas drained', async () => (await inFlight(leaving)) === 0);
  const stopped = await settle(w);
  assert.equal(stopped.report!.models[0], { name: 'm1', desired: 1, running: 1, starting: 0, failed: 0 });
  intact(await Promise.all(pending));
  assert.equal((await of(w, 'm1')).length, 1);
  assert.is((await w.state()).lifecycle, undefined, 'state.json forgets a drain once its replica is stopped');
});

test('50 streams in flight while the spec rolls: the old replicas drain after their replacements run, every stream completes intact', async () => {
  await w.config({ models: models(2) });
  await settle(w);
  const old = (await of(w, 'm1', 'running')).map((r) => r.id);
  assert.is(old.length, 2);
  await slowEngines(old);

  await w.config({ models: models(2, '--max-model-len, "4096"') });
  const surge = await w.tick();
  assert.equal(
    surge.plan!.actions.map((a) => `${a.op} ${a.op === 'stop' ? a.waitFor.length : ''}`.trim()),
    ['start', 'start', 'stop 2', 'stop 2'],
  );
  const fresh = surge.plan!.actions.filter((a) => a.op === 'start').map((a) => a.replica);
  await until('the new replicas running', async () => (await of(w, 'm1', 'running')).filter((r) => fresh.includes(r.id)).length === 2);
  // The table still lists only the old spec: every stream lands there.
  const pending = streams();
  await until('every stream in flight on the old replicas', async () => (await inFlight(old)) === STREAMS);

  const drain = await w.tick();
  assert.equal(
    stops(drain)
      .map((s) => [s.replica, s.phase])
      .sort(),
    old.map((id) => [id, 'drain']).sort(),
  );
  // New requests now go to the new spec and come back whole (its engines are fast).
  const after = await Promise.all([1, 2, 3, 4].map((i) => stream(w.e.world.routerPort, 'm1', `after ${i}`)));
  assert.ok(
    after.every((r) => r.status === 200 && r.done && r.text === 'Hello from the llmgw stub engine.'),
    JSON.stringify(after),
  );
  assert.equal(await inFlight(fresh), 0);

  await until('the old replicas drained', async () => (await inFlight(old)) === 0);
  const done = await settle(w);
  intact(await Promise.all(pending));
  assert.equal((await of(w, 'm1')).map((r) => r.id).sort(), fresh.sort());
  assert.equal(done.report!.models[0], { name: 'm1', desired: 2, running: 2, starting: 0, failed: 0 });
});

test.run();
