// The acceptance of STATUS.md's GPU-hours (docs/status.md#gpu-hours) on a real
// git repo: a scripted history of llmgw's commits over the past week, then
// real ticks (src/tick/run.ts, an in-process fleet, injected clocks). The
// first tick of a UTC date computes yesterday and the last 7 days; they equal
// `llmgw report` over the same days; a later tick that date copies them byte
// for byte; `plan --base` and `status --json` carry them from STATUS.md alone.

import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { runTick } from '../../src/tick/run.js';
import type { ClosedDaysHours } from '../../src/types/gpu-hours.js';
import { parseGpuHoursSection } from '../../src/views/status/index.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml } from '../fixtures/tick-world.js';
import { captureIo } from '../helpers/io.js';
import { tickCommit, writeHistory, type ScriptedCommit } from './history-repo.js';

const H = 3_600_000;
/** The UTC date whose first tick computes the closed days. */
const D = Date.parse('2026-11-30T00:00:00Z');
const at = (h: number) => new Date(D + h * H).toISOString();
const CLUSTER = tickClusterYaml({ nodes: 2 });
const MODELS = modelsYaml([{ name: 'm' }]);

const gpus = [0, 1].map((index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const rep = (replicas: object[]) => ({ version: 1, gpus, replicas, storage: [], warnings: [] });
const r = (id: string, state: string) => ({ id, model: 'm', gpus: [0], state, startedAt: at(-200), port: 8000, rank: 0 });
const upNode = (name: string, replicas: object[]) => ({ name, reachable: true, report: rep(replicas) });
const downNode = (name: string, h: number) => ({
  name,
  reachable: false,
  error: 'connect ETIMEDOUT',
  reason: 'timeout',
  unreachableSince: at(h),
  lastReport: rep([]),
});
const tick = (h: number, nodes: object[]): ScriptedCommit => tickCommit(at(h), nodes, h);

const root = mkdtempSync(join(tmpdir(), 'llmgw-closed-days-'));
const dir = join(root, 'repo');
writeHistory(dir, [
  { time: at(-181), email: 'person@example.com', message: 'the fleet', files: { 'cluster.yaml': CLUSTER, 'models.yaml': MODELS } },
  tick(-180, [upNode('g1', [r('m-0', 'starting')]), upNode('g2', [])]),
  tick(-179, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-156, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-132, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-120, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  // The reconciler stopped for 30 h: 25 h count at the commit before, 5 h are unobserved.
  tick(-90, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-66, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-42, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [])]),
  tick(-30, [upNode('g1', [r('m-0', 'running')]), downNode('g2', -30)]),
  tick(-20, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [r('m-1', 'starting')])]),
  tick(-10, [upNode('g1', [r('m-0', 'running')]), upNode('g2', [r('m-1', 'running')])]),
  tick(-1, [upNode('g1', []), upNode('g2', [r('m-1', 'running')])]),
]);

const canned = cannedFleet({ nodes: ['g1', 'g2'], gpus: 2 });
const transport = handlerTransport(canned);
async function realTick(h: number) {
  const repo = await openConfigRepo({ dir, env: process.env });
  const lines: string[] = [];
  const result = await runTick({ repo, transport, env: {}, now: () => new Date(D + h * H), push: false, notify: false, log: (l) => void lines.push(l) });
  return { result, lines };
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo({ cwd: root, env: { PATH: process.env.PATH, HOME: root } });
  const code = await main(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

const committedSection = async (): Promise<ClosedDaysHours | null> => parseGpuHoursSection(await readFile(join(dir, 'STATUS.md'), 'utf8'));
const sectionText = (status: string) => status.slice(status.indexOf('## GPU-hours'));

let first: ClosedDaysHours | null = null;
let firstText = '';

test('the first tick of 2026-11-30 computes yesterday and the last 7 days from the history', async () => {
  const { result, lines } = await realTick(0.5);
  assert.ok(result.commit !== null, 'the tick committed');
  assert.equal(
    lines.filter((l) => l.includes('GPU-hours')),
    [],
  );
  first = await committedSection();
  assert.ok(first, 'STATUS.md has a GPU-hours section');
  assert.is(first.computedOn, '2026-11-30');
  // Yesterday by hand: m-0 serves all day but its last hour, m-1 starts at 04:00 and serves from 14:00; g2 unreachable until 04:00.
  assert.equal(first.yesterday.models, [{ model: 'm', serving: 33, idle: 0, idleShare: 0 }]);
  assert.equal(first.yesterday.fleet, {
    serving: 33,
    idle: 0,
    transit: 10,
    free: 45,
    unhealthy: 0,
    other: 0,
    unreachable: 8,
    cordoned: 0,
    unobserved: 0,
    idleShare: 0,
  });
  // The 30 h stop: 5 h of 4 GPUs nobody saw.
  assert.is(first.last7Days.fleet.unobserved, 20);
  firstText = sectionText(await readFile(join(dir, 'STATUS.md'), 'utf8'));
});

test('llmgw report for yesterday and for the last 7 days prints the figures of the first commit of today', async () => {
  assert.ok(first);
  for (const [since, span] of [
    ['1d', first.yesterday],
    ['7d', first.last7Days],
  ] as const) {
    const out = await cli('report', '--repo', dir, '--since', since, '--until', at(0), '--format', 'json');
    assert.is(out.code, 0, out.err);
    const j = JSON.parse(out.out) as { models: { model: string; serving: number; idle: number }[]; fleet: Record<string, number> };
    assert.equal(
      j.models.map((m) => ({ model: m.model, serving: m.serving, idle: m.idle })),
      span.models.map((m) => ({ model: m.model, serving: m.serving, idle: m.idle })),
    );
    const { idleShare: _share, ...fleet } = span.fleet;
    assert.equal(j.fleet, fleet);
  }
});

test('a later tick the same date copies the section unchanged, even as the rest of STATUS.md changes', async () => {
  const status = await readFile(join(dir, 'STATUS.md'), 'utf8');
  await writeFile(join(dir, 'models.yaml'), modelsYaml([{ name: 'm', replicas: 2 }]));
  await git(dir, ['-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '--quiet', '-am', 'two replicas']);
  const { result } = await realTick(5);
  assert.ok(result.commit !== null, 'the tick committed');
  const after = await readFile(join(dir, 'STATUS.md'), 'utf8');
  assert.is.not(after, status);
  assert.is(sectionText(after), firstText);
});

test('plan --base: the same date shows the section as REF has it; a later date says the first tick recomputes it', async () => {
  const same = await cli('plan', '--repo', dir, '--base', 'main', '--now', at(6), '--format', 'json');
  assert.is(same.code, 0, same.err);
  assert.equal((JSON.parse(same.out) as { after: { gpuHours: unknown } }).after.gpuHours, first);
  const later = await cli('plan', '--repo', dir, '--base', 'main', '--now', at(25), '--format', 'json');
  assert.is(later.code, 0, later.err);
  assert.equal((JSON.parse(later.out) as { after: { gpuHours: unknown } }).after.gpuHours, { ...first, recomputedOn: '2026-12-01' });
  // The PR comment's STATUS.md diff says it, and changes no figure.
  const md = await cli('plan', '--repo', dir, '--base', 'main', '--now', at(25), '--format', 'markdown');
  assert.is(md.code, 0, md.err);
  assert.ok(md.out.includes('+These are the figures of 2026-11-30: the first tick of 2026-12-01 recomputes them (for a pull request, after merge).'), md.out);
  assert.not.match(md.out, /^[-+]\| m \|/m);
});

test('status --json carries the same field', async () => {
  const out = await cli('status', '--repo', dir, '--observed', join(dir, '.llmgw/observed.json'), '--now', at(6), '--json');
  assert.is(out.code, 0, out.err);
  assert.equal((JSON.parse(out.out) as { gpuHours: unknown }).gpuHours, first);
});

test('the first tick of the next date recomputes: the new yesterday is 2026-11-30', async () => {
  const { result } = await realTick(24.5);
  assert.ok(result.commit !== null);
  const next = await committedSection();
  assert.is(next?.computedOn, '2026-12-01');
  assert.is(next?.yesterday.since, '2026-11-30T00:00:00.000Z');
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
