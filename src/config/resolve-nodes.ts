// cluster.yaml's `nodes:` -> NodeConfig[]: hostlists expanded, `{name}` in
// hosts, storage, and the checks a schema cannot make (declared fabrics, names
// unique after expansion). Work is bounded before it is done: every entry is
// counted first, and past MAX_TOTAL_NODES nothing is expanded at all; names
// are checked for duplicates with one map, in time linear in the names.

import type { NodeConfig, StorageDecl } from '../types/config.js';
import { didYouMean } from './did-you-mean.js';
import { parseHostlist, type ParsedHostlist } from './hostlist.js';
import { MAX_TOTAL_NODES } from './limits.js';
import { unknownPlaceholders } from './placeholders.js';
import { arr, int, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { problemAt, type PathSegment } from './yaml-source.js';

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

/** Each entry's hostlist, parsed and counted; null past the total cap (reported once). */
function countEntries(ctx: ResolveContext, entries: unknown[]): (ParsedHostlist | undefined)[] | null {
  let total = 0;
  const parsed = entries.map((item, i) => {
    const pattern = str(obj(item).name);
    if (pattern === undefined) return undefined;
    const p = parseHostlist(pattern);
    if (!p.ok) ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'name'], p.error));
    return p;
  });
  for (let i = 0; i < parsed.length; i++) {
    const p = parsed[i];
    if (!p?.ok) continue;
    total += p.count;
    if (total > MAX_TOTAL_NODES) {
      ctx.errors.push(
        problemAt(
          ctx.src,
          ['nodes', i, 'name'],
          `the node entries expand to more than ${MAX_TOTAL_NODES.toLocaleString('en-US')} nodes in all (reached at this entry); nothing was expanded`,
        ),
      );
      return null;
    }
  }
  return parsed;
}

export function resolveNodes(ctx: ResolveContext, raw: Raw, fabrics: string[], sshPort: number): NodeConfig[] {
  const entries = arr(raw.nodes);
  const parsed = countEntries(ctx, entries);
  if (parsed === null) return [];
  const declared = new Set(fabrics);
  const nodes: NodeConfig[] = [];
  /** Which entry each name came from: one map, so duplicates cost nothing extra. */
  const owner = new Map<string, number>();
  entries.forEach((item, i) => {
    const n = obj(item);
    const hostlist = parsed[i];
    const fabric = str(n.fabric);
    if (fabric !== undefined && !declared.has(fabric)) {
      ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'fabric'], `fabric '${fabric}' is not declared in fabrics${didYouMean(fabric, fabrics)}`));
    }
    if (!hostlist?.ok) return;
    const storage = resolveStorage(ctx, n.storage, ['nodes', i, 'storage']);
    const host = str(n.host);
    if (host !== undefined) {
      for (const message of unknownPlaceholders(host, ['name'])) ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'host'], message));
    }
    const port = int(n.port) ?? sshPort;
    const gpus = int(n.gpus);
    /** Entry it clashed with -> the names, first one and how many. */
    const clashes = new Map<number, { first: string; count: number }>();
    for (const name of hostlist.expand()) {
      const prev = owner.get(name);
      if (prev !== undefined) {
        const c = clashes.get(prev);
        if (c) c.count++;
        else clashes.set(prev, { first: name, count: 1 });
        continue;
      }
      owner.set(name, i);
      nodes.push({
        name,
        host: host === undefined ? name : host.replaceAll('{name}', name),
        port,
        fabric: fabric ?? '',
        cordon: n.cordon === true,
        ...(gpus === undefined ? {} : { gpus }),
        storage,
      });
    }
    for (const [prev, { first, count }] of clashes) {
      const more = count > 1 ? ` and ${count - 1} more` : '';
      const where = prev === i ? 'earlier in this hostlist' : `in nodes[${prev}]`;
      ctx.errors.push(problemAt(ctx.src, ['nodes', i, 'name'], `duplicate node name '${first}'${more}: already ${where}`));
    }
  });
  return nodes;
}
