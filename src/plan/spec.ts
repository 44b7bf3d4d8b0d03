import { createHash } from 'node:crypto';
import type { EngineConfig, ModelConfig } from '../types/config.js';

/**
 * The short hash over everything that shapes a replica's running process
 * (docs/protocol.md): weights, engine command, args, GPUs per node and node count.
 * A change to any of them rolls the replica; nothing else (priority, replica
 * count, gpuClass) does.
 */
export function replicaSpec(model: ModelConfig, engine: EngineConfig): string {
  const shape = JSON.stringify([model.weights, engine.command, model.args, model.gpus, model.nodes]);
  return createHash('sha256').update(shape).digest('hex').slice(0, 8);
}
