// Spread and survive (docs/placement.md#spread, #survive, #surplus-order), end to
// end over the simulated fleet (real SSH, the real agent, stub engines, the real
// router): a model of two replicas whose weights only gpu-a01 holds still gets
// one replica on gpu-a01 and one elsewhere, so killing either node (its engines
// SIGKILLed, its SSH refusing) leaves a replica that answers through the
// router. And the returning node: when a lost node comes back still running
// its replica, the surplus replica stopped is the one on that node, not the
// replacement that ran through the outage. Each case gets its own world, so a
// kill cannot leak into the next; the clock is the test's.

import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StatusReport } from '../../src/status/index.js';
import { startE2E, type E2E } from './fleet-world.js';
import { DAY_START } from './plan-commit-world.js';

const HOLDER = 'gpu-a01';
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: solo, weights: org/solo, engine: vllm, gpus: 1, replicas: 2, survive: node }
`;

interface Spread {
  e: E2E;
  t: number;
  tick(): Promise<Awaited<ReturnType<E2E['tick']>>>;
}

/** A world whose only copy of org/solo is on gpu-a01's local /models, settled with both replicas running. */
async function spreadWorld(): Promise<Spread> {
  const e = await startE2E({ modelsYaml: MODELS });
  const dir = posix.join(e.world.dir, 'storage', 'nodes', HOLDER, 'models', 'org/solo');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.safetensors'), 'stub weights\n');
  const s: Spread = {
    e,
    t: DAY_START,
    tick: () => {
      s.t += 60_000;
      return e.tick({ now: () => new Date(s.t) });
    },
  };
  for (let i = 0; i < 6; i++) {
    const r = await s.tick();
    if (r.plan?.actions.length === 0 && (r.report?.replicas.every((x) => x.state === 'running') ?? false)) return s;
    await e.waitStarted();
  }
  throw new Error('the fleet did not settle');
}

/** Which node runs each replica of solo, by the agents' own reports. */
async function where(s: Spread): Promise<Record<string, string>> {
  return Object.fromEntries((await s.e.replicasOnFleet()).filter((r) => r.state === 'running').map((r) => [r.id, r.node]));
}

/** A dead host: every engine the node's agent started SIGKILLed (their whole process group), and its SSH refusing. */
async function killNode(s: Spread, node: string): Promise<void> {
  const replicas = join(s.e.world.agentEnv(node).LLMGW_STATE_DIR!, 'replicas');
  for (const f of await readdir(replicas)) {
    const rec = JSON.parse(await readFile(join(replicas, f), 'utf8')) as { pid: number };
    try {
      process.kill(-rec.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await partition(s, node);
}

/** The node's SSH refuses and its kept-open connection drops; its engines keep running (a network partition). */
async function partition(s: Spread, node: string): Promise<void> {
  const refusing = s.e.world.sim.setFaultAsync(node, 'refuse');
  s.e.world.sim.dropConnections(node);
  await refusing;
}

/** `n` chat requests through the router for solo: the status of each, and the answers. */
async function askRouter(s: Spread, n: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`http://127.0.0.1:${s.e.world.routerPort}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'solo', messages: [{ role: 'user', content: `question ${i}` }] }),
    });
    const body = (await res.json()) as { choices?: { message: { content: string } }[] };
    codes.push(res.status === 200 && (body.choices?.[0]?.message.content.length ?? 0) > 0 ? 200 : res.status);
  }
  return codes;
}

function survive(report: StatusReport | null | undefined): unknown {
  return report?.survive?.node.models.solo;
}

test('weights on one node: the two replicas land on two nodes, one of them the holder; survive: node holds', async () => {
  const s = await spreadWorld();
  try {
    const at = await where(s);
    assert.equal(Object.keys(at).sort(), ['solo-0', 'solo-1']);
    const nodes = Object.values(at);
    assert.is(new Set(nodes).size, 2, JSON.stringify(at));
    assert.ok(nodes.includes(HOLDER), JSON.stringify(at));
    const r = await s.tick();
    assert.equal(survive(r.report), { from: 2, to: 1, worst: [...nodes].sort()[0], roomToReplace: true });
    assert.equal(r.report?.surviveWarnings, []);

    // Kill the holder: the replica elsewhere answers every request through the router.
    await killNode(s, HOLDER);
    assert.equal(await askRouter(s, 6), [200, 200, 200, 200, 200, 200]);
  } finally {
    await s.e.close();
  }
});

test('a lost node that comes back still running its replica: the surplus replica stopped is the one on it; then killing the other node leaves the holder serving', async () => {
  const s = await spreadWorld();
  try {
    const before = await where(s);
    const [away] = Object.entries(before).find(([, node]) => node !== HOLDER)!;
    const awayNode = before[away]!;
    await partition(s, awayNode);
    assert.equal(
      (await s.tick()).report?.nodes.unreachable.map((n) => n.node),
      [awayNode],
    );
    // lostAfter (10m) later it is lost, and its replica placed again elsewhere.
    s.t += 11 * 60_000;
    const lost = await s.tick();
    assert.equal(
      lost.report?.nodes.lost.map((n) => n.node),
      [awayNode],
    );
    const replacement = lost.plan!.actions.find((a) => a.op === 'start')!;
    assert.ok(replacement, JSON.stringify(lost.plan?.actions));
    const replacementNode = replacement.placement[0]!.node;
    assert.not.ok([HOLDER, awayNode].includes(replacementNode), `spread: ${replacementNode}`);
    await s.e.waitRunning(3);
    await s.tick();

    // Back, with its replica still running: three replicas of two; the returning node's goes.
    await s.e.world.sim.setFaultAsync(awayNode, null);
    const back = await s.tick();
    const stops = back.plan!.actions.filter((a) => a.op === 'stop');
    assert.equal(
      stops.map((a) => [a.replica, a.placement[0]!.node]),
      [[away, awayNode]],
      JSON.stringify(back.plan?.actions),
    );
    for (let i = 0; i < 4 && Object.keys(await where(s)).length > 2; i++) {
      await s.tick();
      await sleep(200);
    }
    const after = await where(s);
    assert.equal(Object.values(after).sort(), [HOLDER, replacementNode].sort(), JSON.stringify(after));
    const steady = await s.tick();
    assert.equal(survive(steady.report), { from: 2, to: 1, worst: [HOLDER, replacementNode].sort()[0], roomToReplace: true });

    // Kill the node that is not the holder: the holder's replica answers every request.
    await killNode(s, replacementNode);
    assert.equal(await askRouter(s, 6), [200, 200, 200, 200, 200, 200]);
  } finally {
    await s.e.close();
  }
});

test.run();
