// Which requested weights each storage directory holds (docs/protocol.md).
//
// This runs on every node every tick, and a storage path may be a shared filer
// that a thousand nodes read at once: only the top level of each weights
// directory is listed, and only weights files and index files are opened or
// stat'ed. No recursive scans.

import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentReportRequest, StorageReport, WeightsSize } from '../types/snapshot.js';
import { sizeOf, weightsBytes } from './weights-size.js';

const WEIGHT_FILE = /\.(safetensors|bin|pt|pth|gguf)$/;
const PARTIAL_MARKER = /\.(incomplete|part|tmp)$/;
const INDEX_FILE = /\.index\.json$/;
/**
 * huggingface_hub (>= 0.23) downloading with --local-dir keeps its partial
 * files here rather than beside the finished ones; one more non-recursive listing.
 */
const HF_DOWNLOAD_DIR = join('.cache', 'huggingface', 'download');

export type WeightsStatus = { status: 'complete'; bytes: number } | { status: 'absent' } | { status: 'incomplete'; why: string };

/** Why a requested weights path is refused, or null when it is a safe relative path. */
export function unsafeWeightsPath(weights: string): string | null {
  if (weights.trim() === '') return 'empty';
  if (weights.includes('\0')) return 'contains a NUL byte';
  if (weights.startsWith('/') || weights.startsWith('\\') || /^[A-Za-z]:/.test(weights)) return 'absolute';
  if (weights.split(/[/\\]+/).includes('..')) return 'climbs out with ..';
  // `.` or `./` would judge the storage directory itself, which is never one model's weights.
  if (weights.split(/[/\\]+/).every((seg) => seg === '.' || seg === '')) return 'names the storage directory itself';
  return null;
}

async function listNames(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Size of a file (following symlinks, as a Hugging Face cache snapshot is made of them); null when missing or not a file. */
async function fileSize(path: string): Promise<number | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/** Shard names an index file points at (its `weight_map` values). */
async function indexShards(path: string): Promise<string[] | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { weight_map?: unknown };
    const map = parsed.weight_map;
    if (map === null || typeof map !== 'object') return null;
    return [...new Set(Object.values(map as Record<string, unknown>).filter((v): v is string => typeof v === 'string'))];
  } catch {
    return null;
  }
}

/**
 * Complete means servable now: at least one non-empty weights file, no
 * partial-download marker, no zero-byte weights file, and every shard an index
 * names present and non-empty. An empty or half-written directory is the
 * typical state of a download in progress, and calling it "weights" would send
 * a replica to a node that cannot load them.
 */
export async function weightsStatus(dir: string): Promise<WeightsStatus> {
  const names = await listNames(dir);
  if (names === null) return { status: 'absent' };
  const marker = names.find((n) => PARTIAL_MARKER.test(n)) ?? (await listNames(join(dir, HF_DOWNLOAD_DIR)))?.find((n) => PARTIAL_MARKER.test(n));
  if (marker !== undefined) return { status: 'incomplete', why: `partial download ${marker}` };
  const indexes = names.filter((n) => INDEX_FILE.test(n));
  const shardLists = await Promise.all(indexes.map(async (n) => ({ index: n, shards: await indexShards(join(dir, n)) })));
  const unreadable = shardLists.find((s) => s.shards === null);
  if (unreadable) return { status: 'incomplete', why: `unreadable index ${unreadable.index}` };
  const toCheck = new Set([...names.filter((n) => WEIGHT_FILE.test(n)), ...shardLists.flatMap((s) => s.shards ?? [])]);
  const sizes = new Map(await Promise.all([...toCheck].map(async (n) => [n, unsafeWeightsPath(n) === null ? await fileSize(join(dir, n)) : null] as const)));
  for (const { index, shards } of shardLists) {
    const bad = (shards ?? []).find((s) => !sizes.get(s));
    if (bad !== undefined) return { status: 'incomplete', why: `${index} names ${bad}, which is missing or empty` };
  }
  const weightFiles = [...sizes].filter(([n]) => WEIGHT_FILE.test(n));
  const empty = weightFiles.find(([, size]) => size === 0);
  if (empty) return { status: 'incomplete', why: `${empty[0]} is empty` };
  if (!weightFiles.some(([, size]) => (size ?? 0) > 0)) return { status: 'incomplete', why: 'no weights file' };
  return { status: 'complete', bytes: weightsBytes(sizes, shardLists) };
}

/**
 * One StorageReport per directory the node was told to look in, in request
 * order; a node told nothing reports []. Unsafe weights paths are ignored and
 * named in the warnings once, not once per storage entry.
 */
export async function scanStorage(req: Pick<AgentReportRequest, 'storage' | 'weights'>): Promise<{ storage: StorageReport[]; warnings: string[] }> {
  const warnings: string[] = [];
  const wanted: string[] = [];
  for (const w of new Set(req.weights)) {
    const why = unsafeWeightsPath(w);
    if (why === null) wanted.push(w);
    else warnings.push(`ignored weights path ${JSON.stringify(w)}: ${why}`);
  }
  const scanned = await Promise.all(
    req.storage.map(async (entry): Promise<{ report: StorageReport; warning?: string }> => {
      const report: StorageReport = { path: entry.path, kind: entry.kind, weights: [], incomplete: [] };
      if (entry.filer !== undefined) report.filer = entry.filer;
      // Relative to what? Over SSH it would be the login directory: a guess is not an answer.
      if (!entry.path.startsWith('/')) return { report, warning: `storage path ${JSON.stringify(entry.path)} is not absolute; not looked in` };
      if (
        !(await stat(entry.path).then(
          (s) => s.isDirectory(),
          () => false,
        ))
      ) {
        return { report, warning: `storage path ${JSON.stringify(entry.path)} is missing or unreadable` };
      }
      const found = await Promise.all(
        wanted.map(
          async (w) => [w, await weightsStatus(join(entry.path, w)).catch((): WeightsStatus => ({ status: 'incomplete', why: 'unreadable' }))] as const,
        ),
      );
      const sizes: Record<string, WeightsSize> = {};
      for (const [w, s] of found) {
        if (s.status === 'complete') report.weights.push(w);
        if (s.status === 'incomplete') report.incomplete.push(w);
      }
      // Only complete directories have a size worth planning with; config.json is read once each.
      for (const [w, s] of found) if (s.status === 'complete') sizes[w] = await sizeOf(join(entry.path, w), s.bytes);
      if (report.weights.length > 0) report.sizes = sizes;
      return { report };
    }),
  );
  const storage = scanned.map((s) => s.report);
  // Collected after the parallel scan, so the warnings keep request order.
  warnings.push(...scanned.flatMap((s) => (s.warning === undefined ? [] : [s.warning])));
  return { storage, warnings };
}
