// cluster.yaml's plain data -> ClusterConfig: defaults, `~`, durations, and the
// meaning checks of docs/config.md that a schema cannot express. Nodes,
// engines, webhooks and ssh each have a file of their own.

import type { ClusterConfig, GpuClassRule, RouterConfig } from '../types/config.js';
import { arr, int, num, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { resolveEngines, type ArgRules } from './resolve-engines.js';
import { resolveNodes } from './resolve-nodes.js';
import { resolveSlurm } from './resolve-slurm.js';
import { durationAt, resolveSsh, timeoutAt } from './resolve-ssh.js';
import { resolveWebhooks } from './resolve-webhooks.js';
import { keysInFileOrder, problemAt } from './yaml-source.js';

const DEFAULTS = {
  agentCommand: 'llmgw agent',
  routerCommand: 'llmgw router',
  idleAfter: '24h',
  lostAfter: '10m',
  maxStopFraction: 0.5,
  minReachableFraction: 0.5,
  gitTimeout: '60s',
  quarantine: '24h',
} as const;

function resolveRouters(ctx: ResolveContext, raw: Raw, sshPort: number): RouterConfig[] {
  const routers: RouterConfig[] = [];
  const seen = new Map<string, number>();
  arr(raw.routers).forEach((item, i) => {
    const r = obj(item);
    const name = str(r.name);
    if (name === undefined) return;
    const first = seen.get(name);
    if (first !== undefined) {
      ctx.errors.push(problemAt(ctx.src, ['routers', i, 'name'], `duplicate router name '${name}': already routers[${first}]`));
      return;
    }
    seen.set(name, i);
    routers.push({ name, host: str(r.host) ?? name, port: int(r.port) ?? sshPort });
  });
  return routers;
}

/** In file order: the first matching glob wins, so the order is the rule. */
function gpuClassRules(ctx: ResolveContext, raw: Raw): GpuClassRule[] {
  const globs = obj(raw.gpuClasses);
  const written = keysInFileOrder(ctx.src, ['gpuClasses']).filter((k) => Object.hasOwn(globs, k));
  // Keys from a `<<:` merge are not written in the map itself: they follow.
  const names = [...new Set([...written, ...Object.keys(globs)])];
  return names.flatMap((name) => {
    const glob = globs[name];
    return typeof glob === 'string' ? [{ name, glob }] : [];
  });
}

/** `raw` has had its `${VAR}`s substituted already. `argRules` are for checking models.yaml's args. */
export function resolveCluster(ctx: ResolveContext, raw: Raw): { cluster: ClusterConfig; argRules: ArgRules } {
  const ssh = resolveSsh(ctx, obj(raw.ssh));
  const fabrics = arr(raw.fabrics).filter((f): f is string => typeof f === 'string');
  const safety = obj(raw.safety);
  const git = obj(raw.git);
  const { engines, argRules } = resolveEngines(ctx, raw);
  const cluster: ClusterConfig = {
    name: str(raw.name) ?? '',
    ssh,
    agent: { command: str(obj(raw.agent).command) ?? DEFAULTS.agentCommand },
    router: { command: str(obj(raw.router).command) ?? DEFAULTS.routerCommand },
    fabrics,
    gpuClasses: gpuClassRules(ctx, raw),
    nodes: resolveNodes(ctx, raw, fabrics, ssh.port),
    routers: resolveRouters(ctx, raw, ssh.port),
    engines,
    notify: { webhooks: resolveWebhooks(ctx, raw) },
    idleAfterMs: durationAt(ctx, obj(raw.idle).after, DEFAULTS.idleAfter, ['idle', 'after']),
    lostAfterMs: durationAt(ctx, raw.lostAfter, DEFAULTS.lostAfter, ['lostAfter']),
    safety: {
      maxStopFraction: num(safety.maxStopFraction) ?? DEFAULTS.maxStopFraction,
      minReachableFraction: num(safety.minReachableFraction) ?? DEFAULTS.minReachableFraction,
    },
    git: {
      timeoutMs: timeoutAt(ctx, git.timeout, DEFAULTS.gitTimeout, ['git', 'timeout']),
      ...(typeof git.email === 'string' ? { email: git.email } : {}),
    },
    quarantine: {
      durationMs: durationAt(ctx, obj(raw.defaults).quarantine, DEFAULTS.quarantine, ['defaults', 'quarantine']),
      release: arr(obj(raw.quarantine).release).filter((g): g is string => typeof g === 'string'),
    },
  };
  const slurm = resolveSlurm(ctx, raw, cluster.nodes, ssh.port);
  if (slurm) cluster.slurm = slurm;
  return { cluster, argRules };
}
