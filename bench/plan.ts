// `npm run bench:plan`: how long `llmgw plan` takes on generated fleets of 500,
// 1000 and 2000 nodes (8 GPUs each, 4 fabrics, some nodes cordoned or with an
// unhealthy GPU), a mix of 1-, 2-, 4-, 8-GPU and 2-node models asking for about
// 90% of the capacity, half of their replicas already running. Measured after a
// warm-up, median of several runs:
//   whole plan  parse + validate the config text, read and schema-check the
//               snapshot file, build
//               the fleet, place, render the text plan with its STATUS.md diff
//   placement   planFleet alone, and placements per second
//   --base      what `plan --base REF` adds: REF's config parsed and planned on
//               the same snapshot, each action's cause, the argv of changed
//               specs (REF here differs from the branch in two models)
// Targets at 2000 nodes: whole plan < 0.5 s, >= 10,000 placements/s, time
// growing no more than ~2.2x per doubling, and plan --base under 2x a plain plan.
// Fit, spread and survive are on (docs/placement.md#will-it-fit): every GPU
// reports its memory, every holding its size and config.json, every model has
// weightsBytes, half ask `survive: node` and a third `spread: fabric`. Survive's
// own cost is timed apart, at 2,000 and 20,000 nodes: surviveReport over the
// fleet (a count over where replicas run, not a re-plan per failure).
// BENCH_PLAIN=1 leaves the fit inputs, survive: and spread: out (sizes unknown,
// memory unreported, spread at its default), for a before/after on one machine.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readObserved } from '../src/cli/fleet-inputs.js';
import { buildFleet } from '../src/fleet/build-fleet.js';
import { surviveReport } from '../src/fleet/survive.js';
import { newSpecs } from '../src/plan/new-specs.js';
import { planFleet } from '../src/plan/plan-fleet.js';
import { renderPlanText } from '../src/views/plan/render-text.js';
import { MAX_CHARS, renderPlanMarkdown } from '../src/views/plan/render-markdown.js';
import { statusDiff } from '../src/views/plan/status-diff.js';
import type { Plan, StartAction } from '../src/types/plan.js';
import { planTick } from '../src/tick/plan.js';
import { previewTick } from '../src/tick/preview.js';
import type { Snapshot } from '../src/types/snapshot.js';
import { generate, load, NOW, writeRepo, type Generated } from './plan-mix.js';
import { wholeProcess, type WholeRun } from './bench-util.js';
import { emptyState } from '../src/types/state.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Sample {
  whole: number;
  /** The same plan with --base: both configs, two plans, their comparison. */
  base: number;
  place: number;
  placements: number;
  unplaceable: number;
}

async function once(g: Generated): Promise<Sample> {
  const t0 = performance.now();
  const config = load(g);
  const snapshot = await readObserved(g.snapshotFile!, 'observed.json');
  const input = { config, snapshot, state: emptyState(), now: NOW };
  const plain = previewTick(planTick(input), { before: null, base: null });
  renderPlanText(plain.plan, plain.diff, { color: false });
  const t1 = performance.now();
  const fleet = buildFleet(config, snapshot, emptyState(), NOW);
  const t2 = performance.now();
  const plan = planFleet(fleet, emptyState());
  const t3 = performance.now();
  // plan --base: REF's config too, planned on the same snapshot, and the comparison.
  const branch = load(g);
  const ref = load(g, g.baseModelsYaml);
  const based = await readObserved(g.snapshotFile!, 'observed.json');
  const planned = planTick({ ...input, config: branch, snapshot: based });
  const basePlan = planTick({ ...input, config: ref, snapshot: based }).plan;
  const specs = newSpecs(branch, ref, planned.fleet, planned.plan);
  const preview = previewTick(planned, { before: null, base: basePlan, respecced: new Set(specs.map((s) => s.model)) });
  renderPlanText(preview.plan, preview.diff, { color: false, base: 'origin/main', specs });
  const t4 = performance.now();
  return {
    whole: t1 - t0,
    base: t4 - t3,
    place: t3 - t2,
    placements: plan.actions.filter((a) => a.op === 'start').length,
    unplaceable: plan.unplaceable.reduce((n, u) => n + u.missing, 0),
  };
}

const sizes = [500, 1000, 2000];
const runs = Number(process.env.BENCH_RUNS ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-plan-'));
const fleets = sizes.map((nodes) => {
  const g = generate(nodes);
  g.snapshotFile = join(dir, `observed-${nodes}.json`);
  writeFileSync(g.snapshotFile, g.snapshotJson);
  return g;
});
// Rounds interleave the sizes, so a busy moment on a shared machine hits all of
// them alike rather than skewing one; the first two rounds warm the JIT.
const samples: Sample[][] = sizes.map(() => []);
for (let round = 0; round < runs + 2; round++) {
  for (const [i, g] of fleets.entries()) {
    const s = await once(g);
    if (round >= 2) samples[i]!.push(s);
  }
}
rmSync(dir, { recursive: true, force: true });
const rows: string[][] = [
  ['nodes', 'GPUs', 'placed', 'unplaceable', 'whole plan ms', '(fastest)', 'growth', 'placement ms', 'placements/s', '--base ms', 'ratio'],
];
const results = sizes.map((nodes, i) => {
  const s = samples[i]!;
  const whole = median(s.map((x) => x.whole));
  const fastest = Math.min(...s.map((x) => x.whole));
  const place = median(s.map((x) => x.place));
  const base = median(s.map((x) => x.base));
  return { nodes, whole, fastest, place, base, rate: s[0]!.placements / (place / 1000), placements: s[0]!.placements, unplaceable: s[0]!.unplaceable };
});
results.forEach((r, i) => {
  rows.push([
    String(r.nodes),
    String(r.nodes * 8),
    String(r.placements),
    String(r.unplaceable),
    r.whole.toFixed(1),
    r.fastest.toFixed(1),
    i === 0 ? '' : `${(r.whole / results[i - 1]!.whole).toFixed(2)}x`,
    r.place.toFixed(1),
    Math.round(r.rate).toLocaleString('en-US'),
    r.base.toFixed(1),
    `${(r.base / r.whole).toFixed(2)}x`,
  ]);
});
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
const last = results[results.length - 1]!;
// "Time growing no faster than about 2.2x per doubling from 500 to 2000": the
// growth over the whole range, per doubling (each step is printed above; a
// single step of a few milliseconds is at the mercy of one GC pause).
const first = results[0]!;
const growth = Math.pow(last.whole / first.whole, 1 / Math.log2(last.nodes / first.nodes));
console.log('');
console.log(
  `median (and fastest) of ${runs} interleaved rounds after 2 warm-up rounds; node ${process.version}; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs`,
);
console.log(
  `targets at 2000 nodes: whole plan < 500 ms: ${last.whole.toFixed(0)} ms ${last.whole < 500 ? 'ok' : 'MISSED'}; ` +
    `>= 10,000 placements/s: ${Math.round(last.rate).toLocaleString('en-US')} ${last.rate >= 10_000 ? 'ok' : 'MISSED'}; ` +
    `growth per doubling ${first.nodes}->${last.nodes} <= 2.2x: ${growth.toFixed(2)}x ${growth <= 2.2 ? 'ok' : 'MISSED'}; ` +
    `plan --base < 2x a plain plan: ${(last.base / last.whole).toFixed(2)}x ${last.base < 2 * last.whole ? 'ok' : 'MISSED'}`,
);

// The whole command at scale (docs/testing.md#benchmarks-at-scale): `llmgw plan
// --observed FILE` as a user runs it, a fresh process each time (Node's start,
// imports and schema compiles included), on the same mix at 2,000, 10,000 and
// 20,000 nodes written out as config repos. Rounds interleave the sizes. Its
// stdout (megabytes at 20,000 nodes: one line per start) is thrown away.
// Targets: under 1 s at 20,000 nodes, growth per doubling <= 2.1x.
{
  const whole = [2000, 10_000, 20_000];
  const wholeRuns = Number(process.env.BENCH_WHOLE_RUNS ?? 5);
  const repos = mkdtempSync(join(tmpdir(), 'llmgw-bench-plan-whole-'));
  try {
    const written = whole.map((nodes) => writeRepo(join(repos, String(nodes)), generate(nodes)));
    const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
    const runsOf = whole.map((): WholeRun[] => []);
    for (let round = 0; round < wholeRuns; round++) {
      written.forEach((repo, i) => runsOf[i]!.push(wholeProcess([cli, 'plan', '--repo', repo.dir, '--observed', repo.observed, '--now', NOW])));
    }
    const walls = runsOf.map((rs) => median(rs.map((r) => r.wall)));
    const cpus = runsOf.map((rs) => median(rs.map((r) => r.cpu)));
    console.log('');
    console.log(`whole process (llmgw plan --observed, Node's start included), median of ${wholeRuns} interleaved rounds, ms:`);
    const wrows = [['nodes', 'wall', '(fastest)', 'CPU', 'growth']];
    whole.forEach((nodes, i) => {
      const growth = i === 0 ? '' : `${Math.pow(walls[i]! / walls[i - 1]!, 1 / Math.log2(nodes / whole[i - 1]!)).toFixed(2)}x/doubling`;
      wrows.push([nodes.toLocaleString('en-US'), walls[i]!.toFixed(0), Math.min(...runsOf[i]!.map((r) => r.wall)).toFixed(0), cpus[i]!.toFixed(0), growth]);
    });
    const ww = wrows[0]!.map((_, c) => Math.max(...wrows.map((r) => r[c]!.length)));
    for (const r of wrows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(ww[c]!) : cell.padStart(ww[c]!))).join('  '));
    const at20k = walls[2]!;
    const perDoubling = Math.pow(at20k / walls[0]!, 1 / Math.log2(20_000 / 2000));
    console.log(
      `targets at 20,000 nodes: whole plan < 1000 ms: ${at20k.toFixed(0)} ms ${at20k < 1000 ? 'ok' : 'MISSED'}; ` +
        `growth per doubling 2,000->20,000 <= 2.1x: ${perDoubling.toFixed(2)}x ${perDoubling <= 2.1 ? 'ok' : 'MISSED'}; load average ${loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    rmSync(repos, { recursive: true, force: true });
  }
}

// Survive's own cost (docs/placement.md#survive): surviveReport over the built
// fleet, at 2,000 nodes (the table's largest) and 20,000 (docs/placement.md's
// scale), median of several runs after a warm-up.
{
  const out: string[] = [];
  for (const nodes of [2000, 20_000]) {
    const g = generate(nodes);
    const config = load(g);
    const fleet = buildFleet(config, JSON.parse(g.snapshotJson) as Snapshot, emptyState(), NOW);
    const times: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      surviveReport(fleet);
      if (i >= 2) times.push(performance.now() - t0);
    }
    out.push(
      `${nodes.toLocaleString('en-US')} nodes (${fleet.replicas.length.toLocaleString('en-US')} replicas, ${config.models.length} models): ${median(times).toFixed(1)} ms`,
    );
  }
  console.log(`survive alone, median of 10 after 2 warm-up: ${out.join('; ')}`);
}

// The PR comment at its worst: 3,000 starts of distinct 300-character models with
// 5,000-character reasons, 400 unplaceable models, a 100,000-character warning and
// a 200,000-character diff. Past every level of detail, so the rows per table are
// bisected (test/views/plan/render holds the same rule on a smaller plan).
{
  const long = 'm'.repeat(300);
  const start: StartAction = {
    op: 'start',
    replica: 'x',
    model: 'x',
    port: 8000,
    placement: [{ node: 'gpu-a02', gpus: [0, 1, 2, 3] }],
    weights: 'node',
    reason: '',
  };
  const huge: Plan = {
    version: 1,
    changes: true,
    blocked: 'b'.repeat(10_000),
    actions: Array.from({ length: 3000 }, (_, i) => ({ ...start, replica: `${long}${i}-${i}`, model: `${long}${i}`, reason: 'r'.repeat(5_000) })),
    unplaceable: Array.from({ length: 400 }, (_, i) => ({ model: `${long}${i}`, missing: 1, reason: 'ib-x 0, '.repeat(2_000) })),
  };
  const diff = statusDiff('', 'x'.repeat(200_000) + '\n');
  const times: number[] = [];
  let chars = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    chars = renderPlanMarkdown(huge, diff, { warnings: ['w'.repeat(100_000)], base: 'origin/main' }).length;
    times.push(performance.now() - t0);
  }
  console.log(
    `PR comment of a 3,000-row plan: median ${median(times).toFixed(0)} ms of 5; ${chars.toLocaleString('en-US')} chars (limit ${MAX_CHARS.toLocaleString('en-US')}: ${chars <= MAX_CHARS ? 'ok' : 'MISSED'})`,
  );
}
