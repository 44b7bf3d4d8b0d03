// What `llmgw validate` adds as warnings (LoadOptions.advise): things that are
// allowed but worth a reviewer's eye, said once each. Not errors: an engine
// without allowArgs is a choice, and what the fleet holds is no validation
// matter (docs/config.md) — the GPU classes seen come from the last snapshot.

import type { ClusterConfig, ConfigProblem, ModelConfig } from '../types/config.js';
import { closest } from './did-you-mean.js';
import { gpuClassOf } from './gpu-class.js';
import type { ObservedGpus } from '../types/observed-gpus.js';
import { problemAt, type YamlSource } from './yaml-source.js';

/** One warning per engine that accepts any args. */
export function openEngines(src: YamlSource, cluster: ClusterConfig): ConfigProblem[] {
  return Object.values(cluster.engines)
    .filter((e) => e.allowArgs === undefined)
    .map((e) => problemAt(src, ['engines', e.name], `no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)`, 'key'));
}

/** One warning per model whose gpuClass no GPU of the snapshot has; none when the snapshot saw no GPU at all. */
export function unseenClasses(src: YamlSource, cluster: ClusterConfig, models: ModelConfig[], observed: ObservedGpus): ConfigProblem[] {
  const seen = [...new Set(observed.products.map((p) => gpuClassOf(p, cluster.gpuClasses)))].sort();
  if (seen.length === 0) return [];
  return models.flatMap((m) => {
    if (m.gpuClass === undefined || seen.includes(m.gpuClass)) return [];
    const near = closest(m.gpuClass, seen);
    const hint = near === undefined ? '' : ` (did you mean '${near}'?)`;
    return [problemAt(src, ['models', m.index, 'gpuClass'], `no GPU in ${observed.file} has class '${m.gpuClass}'${hint}; classes seen: ${seen.join(', ')}`)];
  });
}
