// What every resolver of cluster.yaml reads and reports into. A file of its own so
// the resolvers (resolve-cluster.ts and the nodes, engines, ssh and webhooks it
// calls) import it from here rather than from resolve-cluster.ts, which imports
// them: no cycle between them (docs/layers.md).

import type { ConfigProblem } from '../types/config.js';
import type { Substituted } from './env-vars.js';
import type { YamlSource } from './yaml-source.js';

export interface ResolveContext {
  src: YamlSource;
  env: Record<string, string | undefined>;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  /** Values that came from `${VAR}`: a problem in one names the variable, never the value. */
  substituted: Substituted[];
  /** The config repo on disk, when known: ssh paths must lie outside it. */
  repoDir?: string;
}
