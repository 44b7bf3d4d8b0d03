// A config repo for `llmgw plan` run as an operator runs it (plan/cli,
// plan/check-survive): cluster.yaml of two 8-GPU H100 nodes n1 and n2 with a
// webhook (so STATUS.md warns of nothing else), the models.yaml the test gives,
// and an observed.json in which both nodes answer, idle, at NOW.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';

export const PLAN_CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
fabrics: [ib-a]
nodes:
  - name: n[1-2]
    fabric: ib-a
engines:
  vllm:
    command: [vllm, serve, "{weightsPath}", --port, "{port}"]
notify:
  webhooks: [{ url: "http://127.0.0.1:9/hook" }]
`;

/** observed.json of n1 and n2, each reporting 8 idle GPUs (of `memoryMiB` each, when given). */
function observed(memoryMiB?: number): string {
  const gpus = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', ...(memoryMiB ? { memoryMiB } : {}), healthy: true }));
  return JSON.stringify({
    version: 1,
    observedAt: '2026-11-29T08:00:00Z',
    nodes: ['n1', 'n2'].map((name) => ({ name, reachable: true, report: { version: 1, gpus, replicas: [], storage: [], warnings: [] } })),
    routers: [],
  });
}

const dirs: string[] = [];

/** A fresh repo with `modelsYaml`, removed by removePlanRepos. */
export function planRepo(modelsYaml: string, gpu: { memoryMiB?: number } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-plan-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'cluster.yaml'), PLAN_CLUSTER);
  writeFileSync(join(dir, 'models.yaml'), modelsYaml);
  mkdirSync(join(dir, '.llmgw'));
  writeFileSync(join(dir, '.llmgw', 'observed.json'), observed(gpu.memoryMiB));
  return dir;
}

/** `llmgw plan` in `dir` against its observed.json at NOW; stdout is not a terminal unless `tty`. */
export async function runPlan(dir: string, args: string[], opts: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const c = captureIo({ cwd: dir, env: opts.env ?? {} });
  c.io.stdout.isTTY = opts.tty ?? false;
  const code = await main(['plan', '--observed', '.llmgw/observed.json', '--now', '2026-11-29T08:00:00Z', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

export function removePlanRepos(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
