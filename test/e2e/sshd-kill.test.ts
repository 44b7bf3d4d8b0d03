// Data path over control path (docs/placement.md#5-lost), end to end over the simulated
// fleet and the real router: the sshd of the node serving a one-replica model is
// killed while its engine keeps answering. The kept SSH connection is re-made
// once it is 10 minutes old (docs/commands.md `run`), so the node is seen
// unreachable, then lost, and a replacement starts elsewhere; throughout,
// requests sent continuously through the router get no 5xx, and the route to
// the old replica goes only after the router holds the replacement's. The
// ticks run at the test's clock (the SSH transport's too); what is asserted
// is the order of events, never a wall-clock margin.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runRouterClient } from '../../src/router/client.js';
import type { RouterUsage } from '../../src/types/snapshot.js';
import { join } from 'node:path';
import { startE2E, type E2E } from './fleet-world.js';
import { ask, until } from './lifecycle-world.js';

const MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: 1, routing: least-inflight }\n';
const MIN = 60_000;

let e: E2E;
/** The test's clock, ms: every tick and the SSH transport's connection ages read it. */
let t = Math.floor(Date.now() / MIN) * MIN;

test.before(async () => {
  e = await startE2E({ modelsYaml: MODELS, ssh: { now: () => t } });
});
test.after(async () => {
  await e.close();
});

async function tick(stepMs: number) {
  t += stepMs;
  const at = new Date(t);
  return e.tick({ now: () => at });
}

async function usage(): Promise<RouterUsage> {
  const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: join(e.world.dir, 'router.sock') });
  if (out.code !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as RouterUsage;
}

/** The replica ids of m1 in the router's table now. */
async function routed(): Promise<string[]> {
  return ((await usage()).table?.m1 ?? []).map((x) => x.replica).sort();
}

async function served(id: string): Promise<number> {
  return (await usage()).served?.[id]?.requests ?? 0;
}

async function running(id: string): Promise<{ id: string; node: string } | undefined> {
  return (await e.replicasOnFleet()).find((r) => r.id === id && r.state === 'running');
}

test('a node whose sshd is killed keeps serving through the router with no 5xx until its replacement is routed', async () => {
  await tick(5_000);
  const old = await until('m1-0 running', () => running('m1-0'));
  await tick(5_000);
  assert.equal(await routed(), ['m1-0']);

  // Requests through the router, continuously, across every tick that follows.
  const statuses: number[] = [];
  let stop = false;
  const loops = Array.from({ length: 3 }, async (_, i) => {
    for (let n = 0; !stop; n++) statuses.push(await ask(e.world.routerPort, 'm1', `q ${i}.${n}`).catch(() => -1));
  });
  await until('requests flowing', async () => statuses.length >= 10);

  // Only the SSH server dies: it refuses new connections, the open one and the engine live on.
  e.world.sim.setFault(old.node, 'refuse');
  const tables: string[][] = [];

  // Younger than 10 minutes, the kept connection still answers: the node looks reachable.
  const early = await tick(MIN);
  assert.not.match(early.status, /unreachable \(not yet lost\)/);
  tables.push(await routed());

  // Re-made at 10 minutes: refused, so unreachable; its route stays.
  const unreachable = await tick(10 * MIN);
  assert.match(unreachable.status, new RegExp(`^- 1 node unreachable \\(not yet lost\\): ${old.node} \\(refused\\)$`, 'm'));
  tables.push(await routed());

  // lostAfter later: lost, a replacement starts elsewhere; the router keeps the old route (it still serves).
  const lost = await tick(10 * MIN);
  assert.ok(lost.events.includes('node.lost'), 'the node is lost');
  const starts = (lost.plan?.actions ?? []).filter((a) => a.op === 'start');
  assert.equal(
    starts.map((a) => a.replica),
    ['m1-1'],
  );
  assert.is.not(starts[0]!.placement[0]!.node, old.node);
  tables.push(await routed());
  const servedWhileLost = await served('m1-0');
  await until('m1-0 serves while its node is lost', async () => (await served('m1-0')) >= servedWhileLost + 5);
  assert.ok((await routed()).includes('m1-0'));

  await until('m1-1 running', () => running('m1-1'));
  await tick(5_000);
  tables.push(await routed());
  await tick(5_000);
  tables.push(await routed());
  const cutAt = statuses.length;
  await until('requests after the cut', async () => statuses.length >= cutAt + 10 && (await served('m1-1')) > 0);
  stop = true;
  await Promise.all(loops);

  assert.equal(tables, [['m1-0'], ['m1-0'], ['m1-0'], ['m1-0', 'm1-1'], ['m1-1']], 'the old route goes only once the router holds the replacement');
  const bad = statuses.filter((s) => s !== 200);
  assert.equal(bad, [], `${bad.length} of ${statuses.length} requests failed (5xx or a broken connection)`);
  assert.ok(statuses.length > 30, 'requests flowed throughout');
});

test.run();
