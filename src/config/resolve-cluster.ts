// cluster.yaml's plain data -> ClusterConfig: defaults, hostlists, `{name}`
// templates, `~`, durations, and the meaning checks of docs/config.md that a
// schema cannot express (references to fabrics, duplicates after expansion).

import type {
  ClusterConfig,
  ConfigProblem,
  EngineConfig,
  EventName,
  GpuClassRule,
  NodeConfig,
  RouterConfig,
  StorageDecl,
  WebhookConfig,
} from '../types/config.js';
import { didYouMean } from './did-you-mean.js';
import { expandHostlist } from './hostlist.js';
import { COMMAND_PLACEHOLDERS, unknownPlaceholders } from './placeholders.js';
import { arr, int, num, obj, str, type Raw } from './raw.js';
import { durationAt, resolveSsh, timeoutAt } from './resolve-ssh.js';
import { keysInFileOrder, problemAt, type PathSegment, type YamlSource } from './yaml-source.js';
import { isHttpUrl } from '../util/url.js';

export interface ResolveContext {
  src: YamlSource;
  env: Record<string, string | undefined>;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

const DEFAULTS = {
  agentCommand: 'llmgw agent',
  routerCommand: 'llmgw router',
  basePort: 8000,
  health: '/health',
  startTimeout: '20m',
  idleAfter: '24h',
  lostAfter: '10m',
  maxStopFraction: 0.5,
  minReachableFraction: 0.5,
} as const;

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function resolveStorage(ctx: ResolveContext, raw: unknown, at: PathSegment[]): StorageDecl[] {
  const out: StorageDecl[] = [];
  const seen = new Map<string, number>();
  arr(raw).forEach((item, j) => {
    const s = obj(item);
    const path = str(s.path);
    const kind = s.kind === 'shared' ? 'shared' : 'local';
    const filer = str(s.filer);
    if (path === undefined) return;
    const key = trimSlash(path);
    const first = seen.get(key);
    if (first !== undefined) {
      ctx.errors.push(problemAt(ctx.src, [...at, j, 'path'], `storage path '${key}' is declared twice on these nodes (also storage[${first}])`));
    } else seen.set(key, j);
    if (s.kind === 'local' && filer !== undefined) {
      ctx.errors.push(problemAt(ctx.src, [...at, j, 'filer'], 'a filer is only for shared storage', 'key'));
    }
    out.push(kind === 'shared' && filer !== undefined ? { path: key, kind, filer } : { path: key, kind });
  });
  return out;
}

function resolveNodes(ctx: ResolveContext, raw: Raw, fabrics: string[], sshPort: number): NodeConfig[] {
  const nodes: NodeConfig[] = [];
  const owner = new Map<string, number>();
  arr(raw.nodes).forEach((item, i) => {
    const n = obj(item);
    const pattern = str(n.name);
    if (pattern === undefined) return;
    const expanded = expandHostlist(pattern);
    if (!expanded.ok) {
      ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'name'], expanded.error));
      return;
    }
    const fabric = str(n.fabric);
    if (fabric !== undefined && !fabrics.includes(fabric)) {
      ctx.errors.push(
        problemAt(ctx.src, ['nodes', i, 'fabric'], `fabric '${fabric}' is not declared in fabrics${didYouMean(fabric, fabrics)}`),
      );
    }
    const storage = resolveStorage(ctx, n.storage, ['nodes', i, 'storage']);
    const host = str(n.host);
    if (host !== undefined) {
      for (const message of unknownPlaceholders(host, ['name'])) ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'host'], message));
    }
    const port = int(n.port) ?? sshPort;
    const clashes = new Map<number, string[]>();
    for (const name of expanded.names) {
      const prev = owner.get(name);
      if (prev !== undefined) {
        clashes.set(prev, [...(clashes.get(prev) ?? []), name]);
        continue;
      }
      owner.set(name, i);
      nodes.push({
        name,
        host: host === undefined ? name : host.replaceAll('{name}', name),
        port,
        fabric: fabric ?? '',
        cordon: n.cordon === true,
        storage,
      });
    }
    for (const [prev, names] of clashes) {
      const more = names.length > 1 ? ` and ${names.length - 1} more` : '';
      const where = prev === i ? 'earlier in this hostlist' : `in nodes[${prev}]`;
      ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'name'], `duplicate node name '${names[0]}'${more}: already ${where}`));
    }
  });
  return nodes;
}

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

function resolveEngines(ctx: ResolveContext, raw: Raw): Record<string, EngineConfig> {
  const engines: Record<string, EngineConfig> = {};
  for (const [name, value] of Object.entries(obj(raw.engines))) {
    const e = obj(value);
    arr(e.command).forEach((part, j) => {
      if (typeof part !== 'string') return;
      for (const message of unknownPlaceholders(part, COMMAND_PLACEHOLDERS)) {
        ctx.errors.push(problemAt(ctx.src, ['engines', name, 'command', j], message));
      }
    });
    engines[name] = {
      name,
      command: arr(e.command).filter((c): c is string => typeof c === 'string'),
      basePort: int(e.basePort) ?? DEFAULTS.basePort,
      health: str(e.health) ?? DEFAULTS.health,
      startTimeoutMs: timeoutAt(ctx, e.startTimeout, DEFAULTS.startTimeout, ['engines', name, 'startTimeout']),
    };
  }
  return engines;
}


function resolveWebhooks(ctx: ResolveContext, raw: Raw): WebhookConfig[] {
  const notify = obj(raw.notify);
  const hooks = arr(notify.webhooks).map((item, j) => {
    const w = obj(item);
    const hook: WebhookConfig = { url: str(w.url) ?? '' };
    // '' is an unset ${VAR}, reported where variables are. The value is never
    // repeated: a webhook URL often carries its token.
    if (hook.url !== '' && !isHttpUrl(hook.url)) {
      ctx.errors.push(problemAt(ctx.src, ['notify', 'webhooks', j, 'url'], 'must be an http:// or https:// URL'));
    }
    const secret = str(w.secret);
    // '' is an unset ${VAR} (a warning, not an error, outside reconcile): an HMAC keyed with nothing signs nothing.
    if (secret) hook.secret = secret;
    if (Array.isArray(w.events)) hook.events = w.events.filter((e): e is EventName => typeof e === 'string');
    return hook;
  });
  if (hooks.length === 0) {
    ctx.warnings.push(
      problemAt(ctx.src, ['notify', 'webhooks'], 'no webhooks: a lost node or a model going down notifies nobody'),
    );
  }
  return hooks;
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

/** `raw` has had `${VAR}`s substituted already. */
export function resolveCluster(ctx: ResolveContext, raw: Raw): ClusterConfig {
  const ssh = resolveSsh(ctx, obj(raw.ssh));
  const fabrics = arr(raw.fabrics).filter((f): f is string => typeof f === 'string');
  const safety = obj(raw.safety);
  return {
    name: str(raw.name) ?? '',
    ssh,
    agent: { command: str(obj(raw.agent).command) ?? DEFAULTS.agentCommand },
    router: { command: str(obj(raw.router).command) ?? DEFAULTS.routerCommand },
    fabrics,
    gpuClasses: gpuClassRules(ctx, raw),
    nodes: resolveNodes(ctx, raw, fabrics, ssh.port),
    routers: resolveRouters(ctx, raw, ssh.port),
    engines: resolveEngines(ctx, raw),
    notify: { webhooks: resolveWebhooks(ctx, raw) },
    idleAfterMs: durationAt(ctx, obj(raw.idle).after, DEFAULTS.idleAfter, ['idle', 'after']),
    lostAfterMs: durationAt(ctx, raw.lostAfter, DEFAULTS.lostAfter, ['lostAfter']),
    safety: {
      maxStopFraction: num(safety.maxStopFraction) ?? DEFAULTS.maxStopFraction,
      minReachableFraction: num(safety.minReachableFraction) ?? DEFAULTS.minReachableFraction,
    },
  };
}
