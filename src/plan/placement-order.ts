import type { ModelConfig } from '../types/config.js';

/**
 * docs/placement.md step 3: models by priority (high first), then size (nodes × gpus,
 * large first: big replicas need whole nodes that small ones would fragment),
 * then their order in models.yaml.
 */
export function placementOrder(models: readonly ModelConfig[]): ModelConfig[] {
  return [...models].sort((a, b) => b.priority - a.priority || b.nodes * b.gpus - a.nodes * a.gpus || a.index - b.index);
}
