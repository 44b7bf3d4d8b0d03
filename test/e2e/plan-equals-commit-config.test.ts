// Plan equals commit (docs/commands.md plan "after") for pull requests that
// change the config: scale up, scale down, a spec roll whose stops wait for
// their replacements, a cordon, a removed model. See plan-commit-world.ts.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { MODELS, mergePr, nodeOf, observeNow, openPr, planPr, reconcileAndCompare, settle, startWorld, type World } from './plan-commit-world.js';

let w: World;
test.before(async () => {
  w = await startWorld();
});
test.after(async () => {
  // When the world did not start, its error is the one to see, not this hook's.
  await (w as World | undefined)?.e.close();
});

/** One scenario: open the PR, plan it, merge it, reconcile at the plan's instant, compare; then let the fleet settle. */
async function scenario(files: Record<string, string>, check: (plan: Awaited<ReturnType<typeof planPr>>) => void): Promise<void> {
  await openPr(w, files);
  const plan = await planPr(w);
  check(plan);
  await mergePr(w);
  await reconcileAndCompare(w, plan);
  await settle(w);
}

/** The same, for the last scenario: its rollout holds for want of traffic, so the fleet does not settle. */
async function scenarioNoSettle(files: Record<string, string>, check: (plan: Awaited<ReturnType<typeof planPr>>) => void): Promise<void> {
  await openPr(w, files);
  const plan = await planPr(w);
  check(plan);
  await mergePr(w);
  await reconcileAndCompare(w, plan);
}

const ops = (p: Awaited<ReturnType<typeof planPr>>) => p.json.actions.map((a) => `${a.op} ${a.cause}`);

test('scale up: the new replica starting, as planned and as committed', async () => {
  await scenario({ 'models.yaml': MODELS({ m1: 3 }) }, (p) => {
    assert.equal(ops(p), ['start change']);
    assert.equal(
      p.json.after.models.find((m) => m.name === 'm1'),
      { name: 'm1', desired: 3, running: 2, starting: 1, failed: 0 },
    );
  });
});

const phases = (p: Awaited<ReturnType<typeof planPr>>) => p.json.actions.map((a) => (a as unknown as { phase?: string }).phase ?? 'stop');

test('scale down: the surplus drains first — out of the router, draining in STATUS.md — as planned and as committed', async () => {
  await openPr(w, { 'models.yaml': MODELS({ m1: 1 }) });
  const plan = await planPr(w);
  assert.equal(ops(plan), ['stop change', 'stop change']);
  assert.equal(phases(plan), ['drain', 'drain']);
  assert.equal(
    plan.json.after.models.find((m) => m.name === 'm1'),
    { name: 'm1', desired: 1, running: 1, starting: 0, failed: 0, draining: 2 },
  );
  assert.equal(plan.json.after.replicas.filter((r) => r.state === 'draining').length, 2);
  assert.ok(plan.afterSide.includes('- Draining before a stop'), plan.afterSide);
  await mergePr(w);
  await reconcileAndCompare(w, plan);
  // The next tick sees no request in flight for them on the router (gathered after the table change): it stops them.
  w.t += 60_000;
  const next = await planPr(w, ['--observed', await observeNow(w)]);
  assert.equal(ops(next), ['stop pending', 'stop pending']);
  assert.equal(phases(next), ['stop', 'stop']);
  assert.ok(
    next.json.actions.every((a) => (a as unknown as { reason: string }).reason.endsWith('; drained')),
    JSON.stringify(next.json.actions),
  );
  assert.not.ok(next.json.after.replicas.some((r) => r.state === 'draining'));
  await reconcileAndCompare(w, next);
  await settle(w);
});

test('a spec roll: new replicas starting, and the stops that wait for them still running', async () => {
  await scenario({ 'models.yaml': MODELS({ m1: 1, m2args: '--max-model-len, "4096"' }) }, (p) => {
    assert.equal(ops(p), ['start change', 'stop change']);
    const stop = p.json.actions.find((a) => a.op === 'stop') as unknown as { waitFor: string[] };
    assert.is(stop.waitFor.length, 1);
    assert.equal(
      p.json.after.models.find((m) => m.name === 'm2'),
      { name: 'm2', desired: 1, running: 1, starting: 1, failed: 0 },
    );
  });
});

test('a cordon: the replica replaced elsewhere, the old one kept until the new one runs', async () => {
  const node = await nodeOf(w, 'm3');
  const cluster = parse(await readFile(join(w.e.workdir, 'cluster.yaml'), 'utf8')) as { nodes: { name: string; cordon?: boolean }[] };
  cluster.nodes.find((n) => n.name === node)!.cordon = true;
  await scenario({ 'models.yaml': MODELS({ m1: 1, m2args: '--max-model-len, "4096"' }), 'cluster.yaml': stringify(cluster) }, (p) => {
    // Every replica on that node (m3's, and whatever else it runs) moves, each stop waiting for its replacement.
    const starts = ops(p).filter((o) => o === 'start change').length;
    assert.ok(starts >= 1);
    assert.equal(ops(p), [...Array(starts).fill('start change'), ...Array(starts).fill('stop change')]);
    assert.ok(p.json.actions.filter((a) => a.op === 'stop').every((a) => (a as unknown as { waitFor: string[] }).waitFor.length > 0));
    assert.equal(p.json.after.nodes.cordoned, [{ node }]);
  });
});

test('a removed model: its replica drains, then stops', async () => {
  await scenario({ 'models.yaml': MODELS({ m1: 1, m2args: '--max-model-len, "4096"', m3: null }) }, (p) => {
    assert.equal(ops(p), ['stop change']);
    assert.equal(phases(p), ['drain']);
    assert.equal(
      p.json.after.replicas.filter((r) => r.model === 'm3').map((r) => r.state),
      ['draining'],
    );
    assert.equal(
      p.json.after.models.find((m) => m.name === 'm3'),
      { name: 'm3', desired: 0, running: 0, starting: 0, failed: 0, draining: 1 },
    );
  });
  assert.not.ok(
    (await w.e.replicasOnFleet()).some((r) => r.id.startsWith('m3-')),
    'settled: stopped',
  );
});

test('a spec change with rollout: the plan shows the canary it starts, as planned and as committed', async () => {
  await scenarioNoSettle({ 'models.yaml': MODELS({ m1: 1, m2args: '--max-model-len, "8192"', m2rollout: true, m3: null }) }, (p) => {
    assert.equal(ops(p), ['start change'], 'the canary only: nothing of the old spec stops');
    const rollouts = (p.json as unknown as { rollouts: { model: string; stage: string; text: string }[] }).rollouts;
    assert.equal(
      rollouts.map((r) => [r.model, r.stage]),
      [['m2', 'canary']],
    );
    assert.match(rollouts[0]!.text, /^canary 1 of 1 for spec [0-9a-f]{8}: starting$/);
    assert.match(p.text, /~ rollout {2}m2: canary 1 of 1 for spec [0-9a-f]{8}: starting/);
    assert.equal(p.json.after.models.find((m) => m.name === 'm2')!.rollout!.stage, 'canary');
    assert.match(p.afterSide, /- Rollout of m2: canary 1 of 1 for spec [0-9a-f]{8}: starting/);
  });
});

test.run();
