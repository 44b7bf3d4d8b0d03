// The bench:plan mix as files: a generated fleet of N nodes (8 GPUs each, 4
// fabrics, some nodes cordoned or with an unhealthy GPU), a mix of 1-, 2-, 4-,
// 8-GPU and 2-node models asking for about 90% of the capacity, half of their
// replicas already running. bench/plan.ts describes the mix; bench/status.ts and
// bench/console.ts time the same fleets, written out as a config repo.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../src/config/load-config.js';
import { replicaSpec } from '../src/plan/spec.js';
import type { Config } from '../src/types/config.js';
import type { AgentReport, ReplicaReport, Snapshot, WeightsSize } from '../src/types/snapshot.js';

const FABRICS = ['a', 'b', 'c', 'd'];
const PLAIN = process.env.BENCH_PLAIN === '1';
export const NOW = '2026-11-29T08:00:00.000Z';
const CLASS_OF_FABRIC: Record<string, string> = { a: 'H100', b: 'H100', c: 'H200', d: 'H200' };
const PRODUCT: Record<string, string> = { H100: 'NVIDIA H100 80GB HBM3', H200: 'NVIDIA H200' };
/** nvidia-smi memory.total of each product. */
const MEMORY_MIB: Record<string, number> = { H100: 81559, H200: 143771 };
/** Weights of 30 GiB a GPU, and a Llama-3.1-70B-like shape at 32,768 tokens: every model fits its class. */
const GIB_PER_GPU = 30 * 2 ** 30;
const SHAPE = {
  hidden_size: 8192,
  max_position_embeddings: 32768,
  num_attention_heads: 64,
  num_hidden_layers: 80,
  num_key_value_heads: 8,
  torch_dtype: 'bfloat16',
};
/** Share of the demanded GPUs by replica shape [gpus, nodes, models of that shape]. */
const SHAPES: [number, number, number, number][] = [
  [1, 1, 5, 0.08],
  [2, 1, 4, 0.12],
  [4, 1, 4, 0.25],
  [8, 1, 4, 0.3],
  [8, 2, 2, 0.25],
];

export interface Generated {
  clusterYaml: string;
  modelsYaml: string;
  /** REF's models.yaml for --base: the branch scales one model up and changes another's args. */
  baseModelsYaml?: string;
  snapshotJson: string;
  /** The snapshot written out, read back as `plan --observed FILE` does. */
  snapshotFile?: string;
}

const pad = (n: number) => String(n).padStart(4, '0');

function clusterYaml(nodesPerFabric: number): string {
  const cordoned = Math.max(1, Math.round(nodesPerFabric / 100));
  const entries = FABRICS.flatMap((f) => [
    `  - name: gpu-${f}[${pad(1)}-${pad(nodesPerFabric - cordoned)}]`,
    `    fabric: ib-${f}`,
    `    storage: [{ path: /models, kind: local }, { path: /lustre/${f}, kind: shared, filer: lustre-${f} }]`,
    `  - name: gpu-${f}[${pad(nodesPerFabric - cordoned + 1)}-${pad(nodesPerFabric)}]`,
    `    fabric: ib-${f}`,
    `    cordon: true`,
    `    storage: [{ path: /models, kind: local }]`,
  ]);
  return [
    'apiVersion: llmgw/v1',
    'kind: Cluster',
    'name: bench',
    `fabrics: [${FABRICS.map((f) => `ib-${f}`).join(', ')}]`,
    'gpuClasses: { H100: "NVIDIA H100*", H200: "NVIDIA H200*" }',
    'nodes:',
    ...entries,
    'routers: [{ name: rt-1, host: rt-1.example }]',
    'engines:',
    '  vllm:',
    '    command: [vllm, serve, "{weightsPath}", --tensor-parallel-size, "{gpus}", --port, "{port}"]',
    '',
  ].join('\n');
}

function modelsYaml(gpusPerClass: number): string {
  const lines = ['apiVersion: llmgw/v1', 'kind: Models', 'models:'];
  for (const cls of ['H100', 'H200']) {
    for (const [gpus, nodes, count, share] of SHAPES) {
      const replicas = Math.max(1, Math.round((gpusPerClass * 0.9 * share) / (gpus * nodes * count)));
      for (let i = 0; i < count; i++) {
        const name = `${cls.toLowerCase()}-g${gpus}n${nodes}-${i}`;
        lines.push(
          `  - name: ${name}`,
          `    weights: org/${name}`,
          `    engine: vllm`,
          `    gpuClass: ${cls}`,
          `    gpus: ${gpus}`,
          `    nodes: ${nodes}`,
          `    replicas: ${replicas}`,
          `    priority: ${i % 3}`,
          ...(PLAIN ? [] : [`    weightsBytes: ${gpus * nodes * GIB_PER_GPU}`]),
          ...(!PLAIN && i % 2 === 0 ? ['    survive: node'] : []),
          ...(!PLAIN && i % 3 === 1 ? ['    spread: fabric'] : []),
        );
      }
    }
  }
  return lines.join('\n') + '\n';
}

/** Half of every model's replicas already running, packed first-fit, large first. */
function snapshotJson(config: Config): string {
  const reports = new Map<string, AgentReport>();
  const freeFrom = new Map<string, number>();
  const byFabric = new Map<string, string[]>();
  config.cluster.nodes.forEach((node, i) => {
    const cls = CLASS_OF_FABRIC[node.fabric.slice(3)]!;
    const gpus = Array.from({ length: 8 }, (_, index) => ({
      index,
      name: PRODUCT[cls]!,
      memoryMiB: MEMORY_MIB[cls]!,
      healthy: !(i % 67 === 5 && index === 5),
    }));
    const storage = node.storage.map((d) => ({ ...d, weights: [] as string[], incomplete: [], sizes: undefined as Record<string, WeightsSize> | undefined }));
    reports.set(node.name, { version: 1, gpus, replicas: [], storage, warnings: [] });
    freeFrom.set(node.name, 0);
    if (!node.cordon) byFabric.set(node.fabric, [...(byFabric.get(node.fabric) ?? []), node.name]);
  });
  const engine = config.cluster.engines.vllm!;
  const ordered = [...config.models].sort((a, b) => b.gpus * b.nodes - a.gpus * a.nodes || a.index - b.index);
  for (const model of ordered) {
    const fabrics = FABRICS.filter((f) => CLASS_OF_FABRIC[f] === model.gpuClass).map((f) => `ib-${f}`);
    const spec = replicaSpec(model, engine);
    for (let r = 0; r < Math.floor(model.replicas / 2); r++) {
      const fabric = fabrics[r % fabrics.length]!;
      const fits = (n: string) => freeFrom.get(n)! + model.gpus <= (model.nodes > 1 ? model.gpus : 8) && (model.nodes === 1 || freeFrom.get(n) === 0);
      const chosen = (byFabric.get(fabric) ?? []).filter(fits).slice(0, model.nodes);
      if (chosen.length < model.nodes) break;
      chosen.forEach((node, rank) => {
        const start = freeFrom.get(node)!;
        const gpus = Array.from({ length: model.gpus }, (_, k) => start + k);
        freeFrom.set(node, model.nodes > 1 ? 8 : start + model.gpus);
        const report = reports.get(node)!;
        const replica: ReplicaReport = {
          id: `${model.name}-${r}`,
          model: model.name,
          gpus,
          state: 'running',
          startedAt: '2026-11-28T08:00:00Z',
          port: 8000 + report.replicas.length,
          rank,
          spec,
        };
        report.replicas.push(replica);
        for (const s of report.storage) {
          if (s.kind !== 'local') continue;
          s.weights.push(model.weights);
          if (!PLAIN) s.sizes = { ...s.sizes, [model.weights]: { bytes: model.gpus * model.nodes * GIB_PER_GPU, config: SHAPE } };
        }
      });
    }
  }
  const snapshot: Snapshot = {
    version: 1,
    observedAt: NOW,
    nodes: [...reports].map(([name, report]) => ({ name, reachable: true as const, report })),
    routers: [{ name: 'rt-1', reachable: true, report: { version: 1, startedAt: '2026-11-28T00:00:00Z', lastUsed: {} } }],
  };
  return JSON.stringify(snapshot);
}

export function generate(nodes: number): Generated {
  const perFabric = nodes / FABRICS.length;
  const clusterText = clusterYaml(perFabric);
  const modelsText = modelsYaml(perFabric * 2 * 8);
  const parsed = load({ clusterYaml: clusterText, modelsYaml: modelsText, snapshotJson: '' });
  // The branch's models.yaml is the snapshot's; REF had fewer of one model and other args for another.
  const branch = modelsText
    .replace(/(name: h100-g1n1-0\n(?:.*\n){5}    replicas: )(\d+)/, (_all, head: string, n: string) => `${head}${Number(n) + 10}`)
    .replace(/(name: h200-g4n1-1\n(?:.*\n){6})/, '$1    args: [--max-model-len, "65536"]\n');
  if (
    branch.split('\n').length !== modelsText.split('\n').length + 1 ||
    !branch.includes(`replicas: ${Number(/name: h100-g1n1-0\n(?:.*\n){5} {4}replicas: (\d+)/.exec(modelsText)![1]) + 10}`)
  ) {
    throw new Error('bench: the branch models.yaml did not come out as intended');
  }
  return { clusterYaml: clusterText, modelsYaml: branch, baseModelsYaml: modelsText, snapshotJson: snapshotJson(parsed) };
}

export function load(g: Generated, models = g.modelsYaml): Config {
  const result = parseConfig({ cluster: { name: 'cluster.yaml', text: g.clusterYaml }, models: { name: 'models.yaml', text: models } });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.file}:${e.line}:${e.col}: ${e.path}: ${e.message}`).join('\n'));
  return result.config;
}

/** The fleet as a config repo in DIR: cluster.yaml, models.yaml (the branch's) and .llmgw/observed.json. */
export function writeRepo(dir: string, g: Generated): { dir: string; observed: string } {
  mkdirSync(join(dir, '.llmgw'), { recursive: true });
  writeFileSync(join(dir, 'cluster.yaml'), g.clusterYaml);
  writeFileSync(join(dir, 'models.yaml'), g.modelsYaml);
  const observed = join(dir, '.llmgw/observed.json');
  writeFileSync(observed, g.snapshotJson);
  return { dir, observed };
}
