// `npm run bench:config`: the config inputs that used to take minutes or
// gigabytes (issue #16 point 7), each loaded as `llmgw validate` loads it, timed.
// Each of them must end, refused with one line or loaded, in under a second.
// One more figure is for information: the largest file llmgw parses at all
// (just under the 4 MiB cap), whose cost is the yaml library's parse speed and
// is bounded by that cap. Each figure is the median of BENCH_RUNS runs
// (default 3), in one process after a warm-up load; peak RSS at the end.

import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../src/config/load-config.js';
import { formatProblem } from '../src/errors.js';
import type { LoadResult } from '../src/types/config.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MS = 1000;

const CLUSTER_HEAD = `apiVersion: llmgw/v1
kind: Cluster
name: bench
fabrics: [ib-a]
engines:
  vllm: { command: [vllm, serve], allowArgs: [--max-model-len, "[0-9]*"] }
nodes:
`;
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 1 }
`;

function clusterWith(entries: string[]): string {
  return CLUSTER_HEAD + entries.map((e) => `  - { name: "${e}", fabric: ib-a }\n`).join('');
}

/** As many single-node entries as fit in just under 4 MiB: the largest file that is parsed at all. */
function largestCluster(): string {
  const entries: string[] = [];
  let size = CLUSTER_HEAD.length;
  for (let i = 0; size < 4 * 1024 * 1024 - 200; i++) {
    const line = `  - { name: "n${i}", fabric: ib-a, storage: [{ path: /models, kind: local }] }\n`;
    entries.push(line);
    size += line.length;
  }
  return CLUSTER_HEAD + entries.join('');
}

function billionLaughs(): string {
  const levels = ['x-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 10; i++) {
    levels.push(
      `x-${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(', ')}]`,
    );
  }
  return `${MODELS}${levels.join('\n')}\n`;
}

interface Case {
  name: string;
  run: () => LoadResult | Promise<LoadResult>;
  /** false: reported, not held to the target. */
  target?: boolean;
}

const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-config-'));
writeFileSync(join(dir, 'cluster.yaml'), clusterWith(['n1']));
writeFileSync(join(dir, 'models.yaml'), '');
truncateSync(join(dir, 'models.yaml'), 50 * 1024 * 1024);

const parse =
  (cluster: string, models = MODELS) =>
  () =>
    parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } }, { env: { HOME: '/h' }, advise: true });

const CASES: Case[] = [
  { name: '300 entries of 100,000 nodes (30M)', run: parse(clusterWith(Array.from({ length: 300 }, (_, i) => `r${i}n[1-100000]`))) },
  { name: '60 entries of 100,000 nodes (6M)', run: parse(clusterWith(Array.from({ length: 60 }, (_, i) => `r${i}n[1-100000]`))) },
  { name: 'gpu-b[1-50000] twice (50,000 duplicates)', run: parse(clusterWith(['gpu-b[1-50000]', 'gpu-b[1-50000]'])) },
  { name: 'one hostlist of 100,000 nodes (valid)', run: parse(clusterWith(['n[000001-100000]'])) },
  { name: 'a 50 MB models.yaml on disk', run: () => loadConfig(dir, { env: { HOME: '/h' }, displayDir: 'repo', advise: true }) },
  { name: 'a 4 MiB cluster.yaml of single-node entries (largest parsed; information)', run: parse(largestCluster()), target: false },
  { name: 'a billion-laughs alias tree', run: parse(clusterWith(['n1']), billionLaughs()) },
  { name: '1,000,000 nested [', run: parse(clusterWith(['n1']), `${MODELS}x-deep: ${'['.repeat(1_000_000)}\n`) },
];

function firstLine(r: LoadResult): string {
  if (r.ok) return `valid (${r.config.cluster.nodes.length} nodes)`;
  const line = (r.errors[0] ? formatProblem(r.errors[0]) : '') + (r.errors.length > 1 ? ` (+${r.errors.length - 1} more)` : '');
  return line.length > 110 ? `${line.slice(0, 109)}…` : line;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  // Warm-up: schema validators and module code, as a long-running process has them.
  parse(clusterWith(['n1']))();
  let worst = 0;
  process.stdout.write(`bench:config — median of ${RUNS} runs each, target < ${TARGET_MS} ms\n\n`);
  for (const c of CASES) {
    const times: number[] = [];
    let result: LoadResult | undefined;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      result = await c.run();
      times.push(performance.now() - t);
    }
    const ms = median(times);
    if (c.target !== false) worst = Math.max(worst, ms);
    process.stdout.write(`${ms.toFixed(0).padStart(6)} ms  ${c.name}\n          ${firstLine(result!)}\n`);
  }
  const rss = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `\nslowest capped case: ${worst.toFixed(0)} ms (${worst < TARGET_MS ? 'under' : 'OVER'} the ${TARGET_MS} ms target); peak RSS ${rss.toFixed(0)} MB\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  if (worst >= TARGET_MS) process.exitCode = 1;
}

await main();
