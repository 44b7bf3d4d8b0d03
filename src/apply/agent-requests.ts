// What each node is told to start (docs/config.md models.yaml, §4 `agent apply`):
// the engine's argv with every placeholder replaced as ONE argv element, so a
// value from the repo can never split into extra arguments or reach a shell.

import { posix } from 'node:path';
import type { CheckConfig, Config, EngineConfig, ModelConfig, NodeConfig } from '../types/config.js';
import type { Fleet, FleetNode } from '../types/fleet.js';
import type { StartAction, StopAction } from '../types/plan.js';
import type { AnswerCheck, StartRequest, StopEntry } from '../types/snapshot.js';
import { stopTimings } from '../plan/drain.js';
import { replicaSpec } from '../plan/spec.js';
import { replicaUrl } from '../fleet/routes.js';
import { ADAPTERS_ELEMENT } from '../config/placeholders.js';

/** One rank of a start, addressed to the node that runs it. */
export interface NodeStart {
  node: string;
  request: StartRequest;
}

const PLACEHOLDER = /\{(model|replica|weights|weightsPath|gpus|port|host|rank|nodes|head)\}/g;

/**
 * Where the node finds the weights: the storage path cluster.yaml told it to
 * look in whose report lists them complete; otherwise the first local path,
 * else the first path, where the engine may fetch them; with no storage at
 * all, the weights string itself (an engine that resolves names by itself).
 */
export function weightsPathFor(nodeConfig: NodeConfig, fleetNode: FleetNode | undefined, weights: string): string {
  const reported = fleetNode?.report?.storage ?? [];
  for (const decl of nodeConfig.storage) {
    const entry = reported.find((s) => s.path === decl.path);
    if (entry?.weights.includes(weights)) return posix.join(decl.path, weights);
  }
  const local = nodeConfig.storage.find((s) => s.kind === 'local');
  const first = local ?? nodeConfig.storage[0];
  return first ? posix.join(first.path, weights) : weights;
}

/**
 * Replace the placeholders in each argv element (`{port}` and `--port={port}`
 * alike). An element stays one element whatever the value holds: spaces or
 * quotes in a model name never split it, because no shell ever parses it.
 * Unknown `{words}` are left as written.
 */
export function expandArgv(template: readonly string[], values: Record<string, string>, adapters: readonly string[] = []): string[] {
  // `{adapters}` alone is one element per adapter, `name=<path>` (vLLM's --lora-modules form); none: no element.
  return template.flatMap((arg) => (arg === ADAPTERS_ELEMENT ? [...adapters] : [arg.replace(PLACEHOLDER, (all: string, key: string) => values[key] ?? all)]));
}

function lookup(config: Config, action: StartAction): { model: ModelConfig; engine: EngineConfig } {
  const model = config.models.find((m) => m.name === action.model);
  if (!model) throw new Error(`start of ${action.replica}: model ${action.model} is not in models.yaml`);
  const engine = config.cluster.engines[model.engine];
  if (!engine) throw new Error(`start of ${action.replica}: engine ${model.engine} is not in cluster.yaml`);
  return { model, engine };
}

function nodeConfigOf(config: Config, fleet: Fleet, name: string): NodeConfig {
  const n = fleet.nodeByName.get(name)?.config ?? config.cluster.nodes.find((c) => c.name === name);
  if (!n) throw new Error(`node ${name} is not in cluster.yaml`);
  return n;
}

/** models.yaml's check on the wire (docs/protocol.md#the-answer-check): `(?i)` arrives as the flag `i`. */
export function wireCheck(check: CheckConfig): AnswerCheck {
  return {
    prompt: check.prompt,
    expect: check.expect.source,
    ...(check.expect.flags ? { flags: check.expect.flags } : {}),
    timeoutSeconds: Math.ceil(check.timeoutMs / 1000),
  };
}

/** A stop entry: the replica and the grace SIGTERM gets before SIGKILL (its model's stopGrace). */
export function stopEntry(stop: Pick<StopAction, 'replica' | 'model'>, fleet: Fleet): StopEntry {
  return { replica: stop.replica, graceSeconds: Math.ceil(stopTimings(fleet, stop.model).stopGraceMs / 1000) };
}

/** The StartRequest of every rank of one start action, rank 0 first. */
export function startRequests(action: StartAction, config: Config, fleet: Fleet): NodeStart[] {
  const { model, engine } = lookup(config, action);
  const spec = replicaSpec(model, engine);
  const rank0 = action.placement[0];
  // The planner never emits a start with no placement.
  if (rank0 === undefined) throw new Error(`start ${action.replica} has no placement`);
  const head = nodeConfigOf(config, fleet, rank0.node);
  // One URL per replica: the head's. A multi-node engine answers HTTP on its
  // head only, so every rank probes (and the routers send traffic to) the head.
  const endpoint = replicaUrl(head.host, action.port);
  const peers = action.placement.map((p) => p.node);
  const template = [...engine.command, ...model.args];
  return action.placement.map((p, rank) => {
    const node = nodeConfigOf(config, fleet, p.node);
    const weightsPath = weightsPathFor(node, fleet.nodeByName.get(p.node), model.weights);
    const adapters = (model.adapters ?? []).map((a) => ({ ...a, weightsPath: weightsPathFor(node, fleet.nodeByName.get(p.node), a.weights) }));
    const command = expandArgv(
      template,
      {
        model: model.name,
        replica: action.replica,
        weights: model.weights,
        weightsPath,
        gpus: String(p.gpus.length),
        port: String(action.port),
        host: node.host,
        rank: String(rank),
        nodes: String(action.placement.length),
        head: head.host,
      },
      adapters.map((a) => `${a.name}=${a.weightsPath}`),
    );
    return {
      node: p.node,
      request: {
        replica: action.replica,
        model: model.name,
        spec,
        weights: model.weights,
        weightsPath,
        gpus: [...p.gpus],
        port: action.port,
        endpoint,
        rank,
        peers,
        command,
        env: { CUDA_VISIBLE_DEVICES: p.gpus.join(',') },
        health: engine.health,
        startTimeoutSeconds: Math.ceil(engine.startTimeoutMs / 1000),
        // Rank 0 serves the endpoint, so only it is asked for an answer; the
        // other ranks are judged on health, and a replica is running only when all are.
        ...(rank === 0 && model.check ? { check: wireCheck(model.check) } : {}),
        ...(rank === 0 && engine.metrics ? { metrics: { ...engine.metrics } } : {}),
        // The agent judges a stall by the model's stallAfter, the routers' too; absent, both use the built-in 60 s.
        ...(rank === 0 && model.liveness ? { stallAfterSeconds: model.liveness.stallAfterMs / 1000 } : {}),
        ...(adapters.length > 0 ? { adapters } : {}),
      },
    };
  });
}
