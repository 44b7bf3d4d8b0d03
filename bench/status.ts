// `npm run bench:status`: how long `llmgw status` takes on examples/large
// (280 nodes, 2,232 GPUs, 46 models). The whole command as a user runs it —
// a fresh process each time, imports and schema compiles included — and the
// in-process phases, each the median of several runs. Target: under 300 ms.
// Then the same command at scale, on the bench:plan mix (bench/plan-mix.ts) at
// 2,000 and 20,000 nodes, interleaved: under 1 s at 20,000 nodes, and the
// STATUS.md it renders (`--format markdown`) under 500 kB (its long lists fold).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { readFleetInputs } from '../src/cli/fleet-inputs.js';
import type { Io } from '../src/cli/io.js';
import { loadConfig } from '../src/config/load-config.js';
import { readState } from '../src/store/read.js';
import { buildFleet } from '../src/fleet/index.js';
import { planFleet } from '../src/plan/plan-fleet.js';
import { summarize } from '../src/status/index.js';
import { renderStatusJson, renderStatusMarkdown, renderStatusText } from '../src/views/status/index.js';
import { readObserved } from '../src/cli/fleet-inputs.js';
import type { Snapshot } from '../src/types/snapshot.js';
import { join } from 'node:path';
import { generate, NOW as MIX_NOW, writeRepo } from './plan-mix.js';
import { wholeProcess, type WholeRun } from './bench-util.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const REPO = 'examples/large';
const OBSERVED = `${REPO}/.llmgw/observed.json`;
const NOW = '2026-11-29T08:00:00Z';
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_MS = 300;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function time<T>(fn: () => T | Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const v = await fn();
  return [v, performance.now() - t];
}

// GNU time gives the child's CPU time too: on a machine shared with other work
// the wall clock mostly measures the neighbours, CPU time measures llmgw.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

function spawnRuns(): { wall: number[]; cpu: number[] } {
  const argv = [CLI, 'status', '--repo', REPO, '--observed', OBSERVED, '--now', NOW, '--format', 'markdown'];
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [cmd, args] = GNU_TIME ? [GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...argv]] : [process.execPath, argv];
    const t = performance.now();
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    wall.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`llmgw status exited ${String(r.status)}: ${r.stderr}`);
    const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(r.stderr);
    if (m) cpu.push((Number(m[1]) + Number(m[2])) * 1000);
  }
  return { wall, cpu };
}

async function phases(): Promise<[string, number[]][]> {
  const names = ['load config', 'read snapshot', 'build fleet', 'plan (unplaceable)', 'summarize', 'render markdown', 'render json', 'render text'];
  const times = new Map<string, number[]>(names.map((n) => [n, []]));
  const repoDir = `${ROOT}${REPO}`;
  for (let i = 0; i < RUNS; i++) {
    const [loaded, tLoad] = await time(() => loadConfig(repoDir, { env: {}, displayDir: REPO }));
    if (!loaded.ok) throw new Error('examples/large is invalid');
    const [snapshot, tRead] = await time(() => readObserved(`${ROOT}${OBSERVED}`, OBSERVED));
    const state = await readState(repoDir);
    const [fleet, tBuild] = await time(() => buildFleet(loaded.config, snapshot, state, NOW));
    const [plan, tPlan] = await time(() => planFleet(fleet, state));
    const [report, tSum] = await time(() => summarize(fleet, plan.unplaceable));
    const [, tMd] = await time(() => renderStatusMarkdown(report));
    const [, tJson] = await time(() => renderStatusJson(report));
    const [, tText] = await time(() => renderStatusText(report, { color: false }));
    [tLoad, tRead, tBuild, tPlan, tSum, tMd, tJson, tText].forEach((t, k) => times.get(names[k] ?? '')?.push(t));
  }
  return [...times.entries()];
}

function row(label: string, xs: number[]): string {
  const f = (n: number) => n.toFixed(1).padStart(8);
  return `${label.padEnd(34)}${f(median(xs))}${f(Math.min(...xs))}${f(Math.max(...xs))}`;
}

const io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {}, cwd: ROOT, debug: false };
const inputs = await readFleetInputs({ repo: REPO, observed: OBSERVED, now: NOW, io: { ...io, stderr: { write: () => true } as unknown as Io['stderr'] } });
const snapshot = inputs.fleet as Snapshot;
const gpus = snapshot.nodes.reduce((n, o) => n + (o.reachable ? o.report.gpus.length : (o.lastReport?.gpus.length ?? 0)), 0);

const whole = spawnRuns();
const inProcess = await phases();
const lines = [
  `llmgw status --format markdown on ${REPO}: ${inputs.config.cluster.nodes.length} nodes, ${gpus} GPUs, ${inputs.config.models.length} models; ${RUNS} runs, ms`,
  '',
  `${'phase'.padEnd(34)}${'median'.padStart(8)}${'min'.padStart(8)}${'max'.padStart(8)}`,
  row('whole command, wall (spawned)', whole.wall),
  ...(whole.cpu.length ? [row('whole command, CPU user+sys', whole.cpu)] : []),
  ...inProcess.map(([name, xs]) => row(`  in-process: ${name}`, xs)),
  '',
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores (wall times grow with it)`,
  `target: whole command under ${TARGET_MS} ms: ${median(whole.wall) < TARGET_MS ? 'met' : 'NOT met'} (wall median ${median(whole.wall).toFixed(0)} ms)`,
];
process.stdout.write(lines.join('\n') + '\n');

// At scale: fresh processes on the mix written out as config repos.
{
  const sizes = [2000, 20_000];
  const runs = Number(process.env.BENCH_WHOLE_RUNS ?? 5);
  const repos = mkdtempSync(join(tmpdir(), 'llmgw-bench-status-'));
  try {
    const written = sizes.map((nodes) => writeRepo(join(repos, String(nodes)), generate(nodes)));
    const argv = (repo: { dir: string; observed: string }) => [
      CLI,
      'status',
      '--repo',
      repo.dir,
      '--observed',
      repo.observed,
      '--now',
      MIX_NOW,
      '--format',
      'markdown',
    ];
    const runsOf = sizes.map((): WholeRun[] => []);
    for (let round = 0; round < runs; round++) written.forEach((repo, i) => runsOf[i]!.push(wholeProcess(argv(repo))));
    const bytes = written.map((repo) => {
      const r = spawnSync(process.execPath, argv(repo), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
      if (r.status !== 0) throw new Error(`llmgw status exited ${String(r.status)}: ${r.stderr}`);
      return Buffer.byteLength(r.stdout);
    });
    const out = ['', `llmgw status --format markdown on the bench:plan mix, whole process, median of ${runs} interleaved rounds:`];
    sizes.forEach((nodes, i) => {
      const rs = runsOf[i]!;
      out.push(
        `${nodes.toLocaleString('en-US').padStart(6)} nodes: wall ${median(rs.map((r) => r.wall)).toFixed(0)} ms (fastest ${Math.min(...rs.map((r) => r.wall)).toFixed(0)}), ` +
          `CPU ${median(rs.map((r) => r.cpu)).toFixed(0)} ms; STATUS.md ${(bytes[i]! / 1000).toFixed(1)} kB`,
      );
    });
    const wall = median(runsOf[1]!.map((r) => r.wall));
    const size = bytes[1]!;
    out.push(
      `targets at 20,000 nodes: status < 1000 ms: ${wall.toFixed(0)} ms ${wall < 1000 ? 'ok' : 'MISSED'}; ` +
        `STATUS.md < 500 kB: ${(size / 1000).toFixed(1)} kB ${size < 500_000 ? 'ok' : 'MISSED'}; load average ${loadavg()[0]!.toFixed(1)}`,
    );
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    rmSync(repos, { recursive: true, force: true });
  }
}
