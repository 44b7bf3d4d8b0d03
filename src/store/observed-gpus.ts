// The GPU product names of the committed snapshot (.llmgw/observed.json), for
// validate's hint that a model's gpuClass matches no GPU the fleet has. Only
// a hint, so reading stays cheap and safe: a regular file under a real
// directory, at most the snapshot's one cap (MAX_BYTES, paths.ts), and a bad
// one is ignored with a warning rather than failing validation.

import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes, readRegularFile } from '../util/regular-file.js';
import type { ObservedGpusResult } from '../types/observed-gpus.js';
import { MAX_BYTES, OBSERVED_FILE } from './paths.js';

const MAX_SNAPSHOT_BYTES = MAX_BYTES[OBSERVED_FILE];

export type { ObservedGpus, ObservedGpusResult } from '../types/observed-gpus.js';

function productsOf(data: unknown): string[] | null {
  const snap = data as { version?: unknown; nodes?: unknown } | null;
  if (snap === null || typeof snap !== 'object' || snap.version !== 1 || !Array.isArray(snap.nodes)) return null;
  const products = new Set<string>();
  for (const n of snap.nodes as unknown[]) {
    const node = (n ?? {}) as { reachable?: unknown; report?: unknown; lastReport?: unknown };
    const report = (node.reachable === true ? node.report : node.lastReport) as { gpus?: unknown } | null | undefined;
    if (!report || !Array.isArray(report.gpus)) continue;
    for (const g of report.gpus as unknown[]) {
      const name = (g as { name?: unknown } | null)?.name;
      if (typeof name === 'string') products.add(name);
    }
  }
  return [...products].sort();
}

/** The snapshot's GPU products; `gpus: null` when the repo has no snapshot (never reconciled). */
export async function readObservedGpus(repoDir: string, shownDir: string): Promise<ObservedGpusResult> {
  const file = join(shownDir, OBSERVED_FILE);
  const ignored = (why: string): ObservedGpusResult => ({
    ok: false,
    warning: { file, line: 1, col: 1, path: '', message: `ignored for validate's hints: ${why}` },
  });
  try {
    const dir = await lstat(join(repoDir, '.llmgw'));
    if (dir.isSymbolicLink()) return ignored('.llmgw is a symbolic link');
    if (!dir.isDirectory()) return ignored('.llmgw is not a directory');
  } catch {
    return { ok: true, gpus: null };
  }
  const r = await readRegularFile(join(repoDir, OBSERVED_FILE), MAX_SNAPSHOT_BYTES);
  if (!r.ok) {
    if (r.why === 'missing') return { ok: true, gpus: null };
    if (r.why === 'symlink') return ignored('it is a symbolic link');
    if (r.why === 'too-large') return ignored(`it is ${formatBytes(r.size)}, more than ${formatBytes(MAX_SNAPSHOT_BYTES)}`);
    return ignored(r.why === 'error' ? `cannot read (${r.code})` : 'not a regular file');
  }
  let data: unknown;
  try {
    data = JSON.parse(r.text);
  } catch {
    return ignored('not valid JSON');
  }
  const products = productsOf(data);
  if (products === null) return ignored('not an llmgw snapshot (expected "version": 1 and "nodes")');
  return { ok: true, gpus: { file, products } };
}
