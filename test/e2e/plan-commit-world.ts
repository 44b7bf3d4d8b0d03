// The invariant of docs/commands.md plan "after", end to end: over the
// simulated fleet (real SSH servers, the real agent, stub engines, a router)
// and a real git remote, `llmgw plan` on a pull request, then the reconcile
// tick after it merges: the committed STATUS.md equals the plan's after-side
// byte for byte, and `status --json` on the result equals the plan's "after"
// (apart from observedAt). Time is the test's: the plan's --now and the tick's
// clock are one instant, so no idle second can differ.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyPatch } from 'diff';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { readSnapshotFile } from '../../src/store/files.js';
import { readState } from '../../src/store/read.js';
import { loadConfig } from '../../src/config/load-config.js';
import { git } from '../../src/demo/git-remote.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { type StatusReport } from '../../src/status/index.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { observe } from '../../src/tick/observe.js';
import { stableJson } from '../../src/util/fs.js';
import { captureIo } from '../helpers/io.js';
import { startE2E, type E2E } from './fleet-world.js';

/** Today 01:00 UTC: scenarios advance the clock by minutes, never across midnight, so STATUS.md's date is one day. */
export const DAY_START = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 1);

export const MODELS = (parts: { m1?: number; m2?: number; m2args?: string; m2rollout?: boolean; m3?: number | null; all?: number }) => {
  const n = (x: number | undefined, d: number) => parts.all ?? x ?? d;
  const lines = [
    'apiVersion: llmgw/v1',
    'kind: Models',
    'models:',
    `  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: ${n(parts.m1, 2)} }`,
    `  - { name: m2, weights: org/m2, engine: vllm, gpus: 4, replicas: ${n(parts.m2, 1)}${parts.m2args ? `, args: [${parts.m2args}]` : ''}${parts.m2rollout ? ', rollout: {}' : ''} }`,
  ];
  if (parts.m3 !== null) lines.push(`  - { name: m3, weights: org/m3, engine: vllm, gpus: 2, replicas: ${n(parts.m3 ?? undefined, 1)} }`);
  return lines.join('\n') + '\n';
};

export interface World {
  e: E2E;
  /** The test's clock, in ms. */
  t: number;
  at(): Date;
  iso(): string;
}

export async function startWorld(): Promise<World> {
  const e = await startE2E({ modelsYaml: MODELS({}) });
  const w: World = { e, t: DAY_START, at: () => new Date(w.t), iso: () => new Date(w.t).toISOString().replace('.000Z', 'Z') };
  await settle(w);
  return w;
}

async function cli(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo({ cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' } });
  const code = await main(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

/** Ticks until a tick plans nothing and every replica runs (none starting or draining); the clock moves a minute a tick. */
export async function settle(w: World): Promise<void> {
  for (let i = 0; i < 12; i++) {
    w.t += 60_000;
    const r = await w.e.tick({ now: () => w.at() });
    const starting = r.report?.replicas.some((x) => x.state === 'starting' || x.state === 'draining') ?? false;
    if (r.plan && r.plan.actions.length === 0 && !starting) return;
    await w.e.waitStarted();
    await sleep(100);
  }
  throw new Error('the fleet did not settle in 12 ticks');
}

export interface PlanOut {
  /** The text format, as printed. */
  text: string;
  json: { actions: { op: string; cause: string }[]; blocked: string | null; after: StatusReport; warnings: string[] };
  /** REF:STATUS.md with the plan's diff applied: the after-side of its STATUS.md diff. */
  afterSide: string;
}

/** `llmgw plan --base origin/main` in the people's checkout, in text (for its diff) and JSON. */
export async function planPr(w: World, extra: string[] = []): Promise<PlanOut> {
  await git(w.e.people, ['fetch', '--quiet', 'origin']);
  const args = ['plan', '--base', 'origin/main', '--now', w.iso(), ...extra];
  const text = await cli(w.e.people, args);
  const json = await cli(w.e.people, [...args, '--format', 'json']);
  assert.is(text.code, 0, text.err);
  assert.is(json.code, 0, json.err);
  const before = await git(w.e.people, ['show', 'origin/main:STATUS.md']).then((s) => s + '\n');
  const at = text.out.indexOf('--- STATUS.md (origin/main)\n');
  const afterSide = at < 0 ? before : applyPatch(before, text.out.slice(at));
  if (afterSide === false) throw new Error(`the plan's diff does not apply to origin/main:STATUS.md:\n${text.out}`);
  return { text: text.out, json: JSON.parse(json.out), afterSide };
}

/** A pull request: a branch off origin/main in the people's checkout with these files. */
export async function openPr(w: World, files: Record<string, string>): Promise<void> {
  await git(w.e.people, ['fetch', '--quiet', 'origin']);
  await git(w.e.people, ['checkout', '--quiet', '-B', 'pr', 'origin/main']);
  for (const [f, text] of Object.entries(files)) await writeFile(join(w.e.people, f), text);
  await git(w.e.people, ['commit', '--quiet', '-am', 'a pull request']);
}

export async function mergePr(w: World): Promise<void> {
  await git(w.e.people, ['push', '--quiet', 'origin', 'pr:main']);
}

/** The reconcile tick at the plan's instant; then the invariant, checked both ways. */
export async function reconcileAndCompare(w: World, plan: PlanOut): Promise<void> {
  const r = await w.e.tick({ now: () => w.at() });
  assert.equal([r.configInvalid, r.outcome?.failed ?? 0, r.outcome?.failures ?? []], [false, 0, []], 'the tick applied without errors');
  const committed = await git(w.e.world.remote, ['show', 'main:STATUS.md']).then((s) => s + '\n');
  assert.fixture(committed, plan.afterSide, "the committed STATUS.md is the after-side of the plan's diff");
  assert.fixture(renderStatusMarkdown(plan.json.after), committed, "and the STATUS.md of the plan's after");
  const status = await cli(w.e.workdir, ['status', '--json', '--observed', '.llmgw/observed.json', '--now', w.iso()]);
  assert.is(status.code, 0, status.err);
  const got = JSON.parse(status.out) as Record<string, unknown>;
  const want = { ...plan.json.after } as Record<string, unknown>;
  delete got.observedAt;
  delete want.observedAt;
  assert.equal(got, want, "status --json of the result is the plan's after");
}

/** The fleet as a tick would observe it now, written where `plan --observed` reads it: for changes to the fleet, not the config. */
export async function observeNow(w: World): Promise<string> {
  const loaded = await loadConfig(w.e.workdir, { env: {}, strictEnv: false });
  if (!loaded.ok) throw new Error('config');
  const transport = createSshTransport(loaded.config.cluster.ssh, { env: process.env, keepAlive: false });
  try {
    const previous = await readSnapshotFile(join(w.e.workdir, '.llmgw/observed.json'));
    const input = await observe(loaded.config, { transport, previous, state: await readState(w.e.workdir), at: w.at() });
    const file = join(w.e.people, '..', 'observed-now.json');
    await writeFile(file, stableJson(input.snapshot));
    return file;
  } finally {
    await transport.close();
  }
}

/** Which node runs a replica of `model` (by the agents' own reports). */
export async function nodeOf(w: World, model: string): Promise<string> {
  const r = (await w.e.replicasOnFleet()).find((x) => x.id.startsWith(`${model}-`));
  if (!r) throw new Error(`no replica of ${model}`);
  return r.node;
}

export async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}
