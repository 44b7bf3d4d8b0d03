import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTick, type TickOptions } from '../../src/daemon/tick.js';
import { cannedFleet, handlerTransport, type CannedFleet } from '../../src/demo/canned-fleet.js';
import { git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import type { Transport } from '../../src/types/transport.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
ssh: { user: llmgw, knownHosts: /dev/null }
fabrics: [ib-a]
nodes:
  - { name: "g[1-4]", fabric: ib-a }
routers:
  - { name: rt-1 }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 }
`;
const models = (replicas: number) => `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 8, replicas: ${replicas} }
`;

async function setup(): Promise<{ dir: string; canned: CannedFleet; tick: (o?: Partial<TickOptions>) => ReturnType<typeof runTick>; lines: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-tick-'));
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(dir, 'cluster.yaml'), CLUSTER);
  await writeFile(join(dir, 'models.yaml'), models(2));
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', 'seed']);
  const repo = await openConfigRepo({ dir, env: process.env });
  const canned = cannedFleet({ nodes: ['g1', 'g2', 'g3', 'g4'] });
  const lines: string[] = [];
  let minute = 0;
  const tick = (o: Partial<TickOptions> = {}) =>
    runTick({
      repo,
      transport: handlerTransport(canned),
      env: {},
      now: () => new Date(Date.parse('2026-11-29T08:00:00Z') + minute++ * 60_000),
      push: false,
      log: (l) => lines.push(l),
      ...o,
    });
  return { dir, canned, tick, lines };
}

const applies = (c: CannedFleet) => c.calls.filter((x) => x.endsWith('agent apply'));

test('a tick applies the plan, then commits the three generated files with a message saying what it did', async () => {
  const { dir, canned, tick } = await setup();
  const r = await tick();
  assert.equal([r.applied, r.outcome!.started, r.outcome!.failed], [true, 2, 0]);
  assert.is(await git(dir, ['log', '-1', '--format=%an|%s']), 'llmgw|llmgw: started 2 (t)');
  assert.equal((await git(dir, ['show', '--name-only', '--format=', 'HEAD'])).split('\n').sort(), ['.llmgw/observed.json', '.llmgw/state.json', 'STATUS.md']);
  const observed = await readFile(join(dir, '.llmgw/observed.json'), 'utf8');
  assert.match(observed, /"state": "starting"/); // the fleet as the tick leaves it
  assert.equal([...canned.replicas.values()].flat().map((x) => x.id).sort(), ['m-0', 'm-1']);
  await rm(dir, { recursive: true, force: true });
});

test('the next tick sees them running and commits; a steady tick after that commits nothing', async () => {
  const { dir, tick } = await setup();
  await tick();
  const second = await tick();
  assert.ok(second.commit);
  assert.match(await readFile(join(dir, '.llmgw/observed.json'), 'utf8'), /"state": "running"/);
  const third = await tick();
  assert.equal([third.plan!.actions.length, third.commit], [0, null]);
  assert.is(await git(dir, ['status', '--porcelain']), '');
  await rm(dir, { recursive: true, force: true });
});

test('uncommitted edits to models.yaml are planned but nothing is applied, and the tick says why', async () => {
  const { dir, canned, tick, lines } = await setup();
  await writeFile(join(dir, 'models.yaml'), models(3));
  const r = await tick();
  assert.equal(r.dirtyConfig, ['models.yaml']);
  assert.is(r.applied, false);
  assert.is(r.plan!.actions.length, 3);
  assert.equal(applies(canned), []);
  assert.ok(lines.some((l) => l.startsWith('uncommitted edits to models.yaml')));
  await rm(dir, { recursive: true, force: true });
});

test('a plan that stops more than maxStopFraction is blocked: shown, nothing applied', async () => {
  const { dir, canned, tick } = await setup();
  await tick();
  await tick();
  await writeFile(join(dir, 'models.yaml'), models(0));
  await git(dir, ['commit', '--quiet', '-am', 'scale to zero']);
  const before = applies(canned).length;
  const r = await tick();
  assert.ok(r.blocked);
  assert.is(r.applied, false);
  assert.is(applies(canned).length, before);
  assert.is(await git(dir, ['log', '-1', '--format=%s']), 'llmgw: plan blocked, nothing applied (t)');
  await rm(dir, { recursive: true, force: true });
});

test('a failed start is recorded in state.json and never stops the other start', async () => {
  const { dir, canned, tick } = await setup();
  const inner = handlerTransport(canned);
  const failing: Transport = {
    async run(target, command, input) {
      if (target.name === 'g1' && command.endsWith('apply')) return JSON.stringify({ version: 1, results: [{ replica: JSON.parse(input).start[0].replica, op: 'start', ok: false, error: 'CUDA error' }] });
      return inner.run(target, command, input);
    },
    close: async () => undefined,
  };
  const r = await tick({ transport: failing });
  assert.equal([r.outcome!.started, r.outcome!.failed], [1, 1]);
  const state = JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8'));
  assert.equal(state.startFailures.map((f: { node: string; model: string; error: string }) => [f.node, f.model, f.error]), [['g1', 'm', 'CUDA error']]);
  assert.ok(r.events.includes('apply.failed'));
  await rm(dir, { recursive: true, force: true });
});

test.run();
