// cluster.yaml's plain data -> ClusterConfig: defaults, hostlists, `{name}`
// templates, `~`, durations, and the meaning checks of CONTRACT §3 that a
// schema cannot express (references to fabrics, duplicates after expansion).

import { homedir } from 'node:os';
import type {
  ClusterConfig,
  ConfigProblem,
  EngineConfig,
  EventName,
  NodeConfig,
  ProxyJump,
  RouterConfig,
  StorageDecl,
  WebhookConfig,
} from '../types/config.js';
import { didYouMean } from './did-you-mean.js';
import { parseDuration } from './duration.js';
import { expandHostlist } from './hostlist.js';
import { COMMAND_PLACEHOLDERS, unknownPlaceholders } from './placeholders.js';
import { arr, int, num, obj, str, type Raw } from './raw.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

export interface ResolveContext {
  src: YamlSource;
  env: Record<string, string | undefined>;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

const DEFAULTS = {
  port: 22,
  connectTimeout: '10s',
  commandTimeout: '60s',
  concurrency: 64,
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

function duration(v: unknown, fallback: string): number {
  // A malformed duration is reported by the schema (its pattern is this grammar).
  return parseDuration(str(v) ?? fallback) ?? (parseDuration(fallback) as number);
}

function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return home.replace(/\/$/, '') + path.slice(1);
  return path;
}

function proxyJump(v: string | undefined, user: string): ProxyJump | undefined {
  const m = v === undefined ? null : /^(?:([^@\s]+)@)?([^@:\s]+)(?::([0-9]+))?$/.exec(v);
  if (!m) return undefined;
  return { user: m[1] ?? user, host: m[2], port: m[3] ? Number(m[3]) : DEFAULTS.port };
}

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
      startTimeoutMs: duration(e.startTimeout, DEFAULTS.startTimeout),
    };
  }
  return engines;
}

function resolveWebhooks(ctx: ResolveContext, raw: Raw): WebhookConfig[] {
  const notify = obj(raw.notify);
  const hooks = arr(notify.webhooks).map((item) => {
    const w = obj(item);
    const hook: WebhookConfig = { url: str(w.url) ?? '' };
    const secret = str(w.secret);
    if (secret !== undefined) hook.secret = secret;
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

/** `raw` has had `${VAR}`s substituted already. */
export function resolveCluster(ctx: ResolveContext, raw: Raw): ClusterConfig {
  const ssh = obj(raw.ssh);
  const home = ctx.env.HOME ?? homedir();
  const user = str(ssh.user) ?? ctx.env.USER ?? ctx.env.LOGNAME ?? 'root';
  const port = int(ssh.port) ?? DEFAULTS.port;
  const identityFile = str(ssh.identityFile);
  const jump = proxyJump(str(ssh.proxyJump), user);
  const fabrics = arr(raw.fabrics).filter((f): f is string => typeof f === 'string');
  const safety = obj(raw.safety);
  return {
    name: str(raw.name) ?? '',
    ssh: {
      user,
      ...(identityFile !== undefined ? { identityFile: expandHome(identityFile, home) } : {}),
      knownHosts: expandHome(str(ssh.knownHosts) ?? '~/.ssh/known_hosts', home),
      port,
      connectTimeoutMs: duration(ssh.connectTimeout, DEFAULTS.connectTimeout),
      commandTimeoutMs: duration(ssh.commandTimeout, DEFAULTS.commandTimeout),
      concurrency: int(ssh.concurrency) ?? DEFAULTS.concurrency,
      ...(jump ? { proxyJump: jump } : {}),
    },
    agent: { command: str(obj(raw.agent).command) ?? DEFAULTS.agentCommand },
    router: { command: str(obj(raw.router).command) ?? DEFAULTS.routerCommand },
    fabrics,
    gpuClasses: Object.entries(obj(raw.gpuClasses))
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([name, glob]) => ({ name, glob })),
    nodes: resolveNodes(ctx, raw, fabrics, port),
    routers: resolveRouters(ctx, raw, port),
    engines: resolveEngines(ctx, raw),
    notify: { webhooks: resolveWebhooks(ctx, raw) },
    idleAfterMs: duration(obj(raw.idle).after, DEFAULTS.idleAfter),
    lostAfterMs: duration(raw.lostAfter, DEFAULTS.lostAfter),
    safety: {
      maxStopFraction: num(safety.maxStopFraction) ?? DEFAULTS.maxStopFraction,
      minReachableFraction: num(safety.minReachableFraction) ?? DEFAULTS.minReachableFraction,
    },
  };
}
