// Which argv a plan puts on nodes for the first time (docs/security.md): a
// reviewer reads the command every new or changed spec runs, once per model,
// before merging lets it reach the fleet.

import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import { replicaSpec, specArgv } from './spec.js';

export interface SpecArgv {
  model: string;
  spec: string;
  argv: string[];
}

/**
 * With REF's config: every model whose spec REF does not have (a new model, or
 * a changed command, args, weights, gpus or nodes). Without one (no --base, or
 * REF's config is invalid): every model this plan starts whose spec no replica
 * in the fleet runs yet.
 */
export function newSpecs(config: Config, base: Config | null, fleet: Fleet, plan: Plan): SpecArgv[] {
  const baseSpec = new Map<string, string>();
  for (const m of base?.models ?? []) {
    const engine = base?.cluster.engines[m.engine];
    if (engine) baseSpec.set(m.name, replicaSpec(m, engine));
  }
  const running = new Set(fleet.replicas.map((r) => `${r.model}\u0000${String(r.spec)}`));
  const starting = new Set(plan.actions.filter((a) => a.op === 'start').map((a) => a.model));
  const out: SpecArgv[] = [];
  for (const m of config.models) {
    const engine = config.cluster.engines[m.engine];
    if (!engine) continue;
    const spec = replicaSpec(m, engine);
    const introduced = base !== null ? baseSpec.get(m.name) !== spec : starting.has(m.name) && !running.has(`${m.name}\u0000${spec}`);
    if (introduced) out.push({ model: m.name, spec, argv: specArgv(m, engine) });
  }
  return out.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}
