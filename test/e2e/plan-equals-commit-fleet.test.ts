// Plan equals commit (docs/commands.md plan "after") when the fleet changes
// under the config — an unhealthy GPU, a lost node — and for a plan the
// safety rules block. See plan-commit-world.ts.

import { readFile, writeFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAgent } from '../../src/agent/main.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { MODELS, mergePr, nodeOf, observeNow, openPr, planPr, reconcileAndCompare, settle, startWorld, type World } from './plan-commit-world.js';

let w: World;
test.before(async () => {
  w = await startWorld();
});
test.after(async () => {
  // When the world did not start, its error is the one to see, not this hook's.
  await (w as World | undefined)?.e.close();
});

const ops = (p: Awaited<ReturnType<typeof planPr>>) => p.json.actions.map((a) => `${a.op} ${a.cause}`);

test('an unhealthy GPU: the replica on it replaced, the old one kept until the new one runs', async () => {
  const node = await nodeOf(w, 'm2');
  const env = w.e.world.agentEnv(node);
  const report = JSON.parse((await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), env)).stdout) as AgentReport;
  const gpu = report.replicas.find((r) => r.model === 'm2')!.gpus[0]!;
  const fixture = env.LLMGW_FAKE_GPUS!;
  const rows = (await readFile(fixture, 'utf8')).split('\n');
  const cells = rows[gpu]!.split(', ');
  cells[4] = '2'; // uncorrectable ECC errors
  rows[gpu] = cells.join(', ');
  await writeFile(fixture, rows.join('\n'));
  w.t += 60_000;
  // No PR: the plan reads the fleet as a tick would observe it now (REF's config, state and STATUS.md).
  const plan = await planPr(w, ['--observed', await observeNow(w)]);
  assert.equal(ops(plan), ['start pending', 'stop pending']);
  assert.equal(
    plan.json.after.capacity.reduce((n, c) => n + c.unhealthy, 0),
    1,
  );
  await reconcileAndCompare(w, plan);
  await settle(w);
});

test('a lost node: its replicas placed again elsewhere, as REF would do anyway', async () => {
  const node = await nodeOf(w, 'm1');
  const refusing = w.e.world.sim.setFaultAsync(node, 'refuse');
  w.e.world.sim.dropConnections(node);
  await refusing;
  // A tick sees it silent and commits since when; lostAfter (10m) later it is lost.
  w.t += 60_000;
  assert.ok((await w.e.tick({ now: () => w.at() })).commit);
  w.t += 15 * 60_000;
  // A PR merged meanwhile scales m1 up: one start is the PR's, the replacement is REF's anyway.
  await openPr(w, { 'models.yaml': MODELS({ m1: 3 }) });
  const plan = await planPr(w);
  const starts = plan.json.actions.filter((a) => a.op === 'start').map((a) => a.cause);
  assert.ok(starts.includes('pending') && starts.includes('change'), JSON.stringify(plan.json.actions));
  assert.is(plan.json.after.nodes.lost.length, 1);
  await mergePr(w);
  await reconcileAndCompare(w, plan);
  await settle(w);
});

test('a blocked plan: nothing applied, and STATUS.md says why, as planned and as committed', async () => {
  await openPr(w, { 'models.yaml': MODELS({ all: 0 }) });
  const plan = await planPr(w);
  assert.ok(plan.json.blocked);
  assert.ok(plan.json.actions.length > 0);
  assert.is(plan.json.after.blocked, plan.json.blocked);
  assert.ok(plan.afterSide.includes(`- the plan is blocked, nothing is applied: ${plan.json.blocked}`));
  await mergePr(w);
  await reconcileAndCompare(w, plan);
  assert.ok((await w.e.replicasOnFleet()).length > 0, 'nothing was stopped');
});

test.run();
