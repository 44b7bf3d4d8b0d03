// cluster.yaml's `slurm:` and `nodes[].slurmName` -> SlurmConfig (docs/slurm.md).
// The schema checks each value's shape (account, qos, reservation and partition
// are Slurm names: they reach sbatch's command line); here are the checks across
// keys: `mode: jobs` needs a partition, and two nodes may not be one Slurm node.

import type { NodeConfig, SlurmConfig } from '../types/config.js';
import { parseHostlist } from './hostlist.js';
import { unknownPlaceholders } from './placeholders.js';
import { arr, int, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { problemAt } from './yaml-source.js';

/** cluster.yaml name -> Slurm name, for the nodes whose entry has a slurmName that differs. */
function slurmNames(ctx: ResolveContext, raw: Raw, nodes: readonly NodeConfig[]): Record<string, string> {
  const known = new Set(nodes.map((n) => n.name));
  const names: Record<string, string> = {};
  /** Slurm name -> the cluster.yaml node that took it first. */
  const taken = new Map<string, string>();
  arr(raw.nodes).forEach((item, i) => {
    const n = obj(item);
    const pattern = str(n.name);
    const slurmName = str(n.slurmName);
    if (pattern === undefined) return;
    if (slurmName !== undefined) {
      const unknown = unknownPlaceholders(slurmName, ['name']);
      for (const message of unknown) ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'slurmName'], message));
      // One problem at a time: a name with a placeholder llmgw does not know maps to nothing.
      if (unknown.length > 0) return;
    }
    const hostlist = parseHostlist(pattern);
    // Past the node cap resolveNodes expanded nothing (and said so): nothing is known here either.
    if (!hostlist.ok || known.size === 0) return;
    for (const name of hostlist.expand()) {
      if (!known.has(name)) continue;
      const mapped = slurmName === undefined ? name : slurmName.replaceAll('{name}', name);
      const first = taken.get(mapped);
      if (first !== undefined && first !== name) {
        ctx.errors.push(problemAt(ctx.src, ['nodes', i, slurmName === undefined ? 'name' : 'slurmName'], `Slurm node '${mapped}' is already node '${first}'`));
        return;
      }
      taken.set(mapped, name);
      if (mapped !== name) names[name] = mapped;
    }
  });
  return names;
}

export function resolveSlurm(ctx: ResolveContext, raw: Raw, nodes: readonly NodeConfig[], sshPort: number): SlurmConfig | undefined {
  if (raw.slurm === undefined) {
    const named = arr(raw.nodes).findIndex((n) => obj(n).slurmName !== undefined);
    if (named >= 0) ctx.warnings.push(problemAt(ctx.src, ['nodes', named, 'slurmName'], 'slurmName has no effect without slurm:', 'key'));
    return undefined;
  }
  const s = obj(raw.slurm);
  const mode = s.mode === 'jobs' ? 'jobs' : 'observe';
  const partition = str(s.partition);
  if (mode === 'jobs' && partition === undefined) {
    ctx.errors.push(problemAt(ctx.src, ['slurm', 'mode'], 'mode jobs needs slurm.partition: the partition llmgw submits its jobs to'));
  }
  const slurm: SlurmConfig = {
    host: str(s.host) ?? '',
    port: int(s.port) ?? sshPort,
    mode,
    yield: s.yield === true,
    names: slurmNames(ctx, raw, nodes),
  };
  if (partition !== undefined) slurm.partition = partition;
  for (const key of ['account', 'qos', 'reservation'] as const) {
    const v = str(s[key]);
    if (v !== undefined) slurm[key] = v;
  }
  return slurm;
}
