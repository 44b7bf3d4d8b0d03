// What every resolver of cluster.yaml reads and reports into. A file of its own so
// the resolvers (resolve-cluster.ts and the nodes, engines, ssh and webhooks it
// calls) import it from here rather than from resolve-cluster.ts, which imports
// them: no cycle between them (docs/layers.md).

import type { ConfigProblem } from '../types/config.js';
import type { Substituted } from './env-vars.js';
import type { YamlSource } from './yaml-source.js';

/**
 * What the config's meaning depends on from the machine llmgw runs on, looked
 * up once by the file reader (load-config.ts) and passed in, so the resolvers
 * stay pure: the home directory `~` stands for, the user ssh would log in as,
 * and real paths (links followed) for the outside-the-repo rule.
 */
export interface HostFacts {
  /** The OS's home directory, used when the environment has no HOME. */
  home: string;
  /** The user from the password database, used when neither ssh.user nor USER/LOGNAME say. */
  user: string;
  /** The real path of an existing path (links followed); throws when it does not exist. */
  realpath: (path: string) => string;
}

export interface ResolveContext {
  src: YamlSource;
  env: Record<string, string | undefined>;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  /** Values that came from `${VAR}`: a problem in one names the variable, never the value. */
  substituted: Substituted[];
  /** The config repo on disk, when known: ssh paths must lie outside it. */
  repoDir?: string;
  host: HostFacts;
}
