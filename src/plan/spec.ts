import { createHash } from 'node:crypto';
import type { EngineConfig, ModelConfig } from '../types/config.js';

/**
 * The short hash over everything that shapes a replica's running process
 * (docs/protocol.md): weights, engine command, args, GPUs per node and node count.
 * A change to any of them rolls the replica; nothing else (priority, replica
 * count, gpuClass) does.
 */
export function replicaSpec(model: ModelConfig, engine: EngineConfig): string {
  // Adapters shape the process too; a model without them hashes as it always did, so adding the key rolls nothing.
  const base = [model.weights, engine.command, model.args, model.gpus, model.nodes];
  const shape = JSON.stringify(model.adapters && model.adapters.length > 0 ? [...base, model.adapters.map((a) => [a.name, a.weights])] : base);
  return createHash('sha256').update(shape).digest('hex').slice(0, 8);
}

/** The placeholders that differ from replica to replica, and stay as written in `specArgv`. */
const PER_REPLICA = new Set(['replica', 'weightsPath', 'port', 'host', 'rank', 'head']);
const PLACEHOLDER = /\{(model|replica|weights|weightsPath|gpus|port|host|rank|nodes|head)\}/g;

/**
 * The argv every replica of a model runs, once per model (the markdown plan
 * shows it for each new or changed spec): the engine command and the model's
 * args with what is the same for every replica filled in, and what differs per
 * replica ({port}, {host}, {replica}, {weightsPath}, {rank}, {head}) left as written.
 */
export function specArgv(model: ModelConfig, engine: EngineConfig): string[] {
  const values: Record<string, string> = { model: model.name, weights: model.weights, gpus: String(model.gpus), nodes: String(model.nodes) };
  return [...engine.command, ...model.args].map((arg) => arg.replace(PLACEHOLDER, (all, key: string) => (PER_REPLICA.has(key) ? all : (values[key] ?? all))));
}
