// Parsing `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` and judging
// each GPU's health. Pure: the spawn lives in gpus.ts.

import type { GpuReport } from '../types/snapshot.js';
import { cleanText } from './quote.js';

/**
 * The fields the agent asks for, in this order. The last three decide health:
 * an uncorrectable ECC error since boot, a page waiting to be retired at the
 * next reset, or a row remap that failed all mean the memory can no longer be
 * trusted, and a scheduler that counts such a GPU as free places work that dies.
 */
export const GPU_FIELDS = [
  'index',
  'uuid',
  'name',
  'memory.total',
  'ecc.errors.uncorrected.volatile.total',
  'retired_pages.pending',
  'remapped_rows.failure',
  // Last, so a fixture or wrapper printing the seven fields before it still parses.
  // Not reported: it is how Xid lines of the kernel log find their GPU (kernel-log.ts).
  'pci.bus_id',
] as const;

/** Drivers older than row remapping (pre-Ampere era) reject that field: ask without it. */
export const GPU_FALLBACK_FIELDS = GPU_FIELDS.filter((f) => f !== 'remapped_rows.failure');

export function gpuQueryArgs(fields: readonly string[]): string[] {
  return [`--query-gpu=${fields.join(',')}`, '--format=csv,noheader,nounits'];
}

type Cell = { kind: 'value'; text: string } | { kind: 'unknown' } | { kind: 'error'; text: string };

/**
 * `[N/A]` and `[Not Supported]` mean "this GPU cannot tell" (consumer cards have
 * no ECC); any other bracketed value (`[GPU requires reset]`, `[Unknown Error]`,
 * `[GPU is lost]`) or `ERR!` is nvidia-smi saying the GPU itself is in error.
 */
function readCell(raw: string): Cell {
  const text = raw.trim();
  if (text === '' || /^\[?(N\/A|Not Supported)\]?$/i.test(text)) return { kind: 'unknown' };
  if (/^\[.*\]$/.test(text) || /^ERR!?$/i.test(text)) return { kind: 'error', text };
  return { kind: 'value', text };
}

/** "Yes", or a count above zero (some drivers print 1/0 for booleans). */
function isSet(cell: Cell | undefined): boolean {
  if (cell?.kind !== 'value') return false;
  if (/^yes$/i.test(cell.text)) return true;
  const n = Number(cell.text);
  return Number.isFinite(n) && n > 0;
}

function healthProblems(cells: Map<string, Cell>): string[] {
  const problems: string[] = [];
  const errors = new Set([...cells.values()].flatMap((c) => (c.kind === 'error' ? [c.text] : [])));
  if (errors.size > 0) problems.push(`nvidia-smi reports it in error: ${[...errors].join(', ')}`);
  const ecc = cells.get('ecc.errors.uncorrected.volatile.total');
  const eccCount = ecc?.kind === 'value' ? parseFloat(ecc.text) : 0;
  if (eccCount > 0) problems.push(`uncorrectable ECC errors: ${eccCount}`);
  if (isSet(cells.get('retired_pages.pending'))) problems.push('retired pages pending (needs a GPU reset)');
  if (isSet(cells.get('remapped_rows.failure'))) problems.push('row remapping failed');
  return problems;
}

/** nvidia-smi's output is quoted into warnings: one line, no control characters, bounded. */
function shorten(line: string): string {
  return cleanText(line, 200);
}

/**
 * One GpuReport per well-formed line. A line that is not a GPU row (nvidia-smi
 * prints "Unable to determine the device handle for GPU…" for a GPU that fell
 * off the bus) becomes a warning, so the node's other GPUs are still reported.
 */
export function parseGpuCsv(text: string, fields: readonly string[]): { gpus: GpuReport[]; warnings: string[]; busIds: Map<number, string> } {
  const gpus: GpuReport[] = [];
  const warnings: string[] = [];
  const busIds = new Map<number, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const raw = line.split(',');
    const first = raw[0]?.trim() ?? '';
    if (first === 'index') continue; // a header line, from a wrapper that forgot noheader
    const index = Number(first);
    // Fewer columns than asked is read as the leading fields (a fake or wrapper that prints less); more is not a GPU row.
    if (raw.length < 3 || raw.length > fields.length || first === '' || !Number.isInteger(index) || index < 0) {
      warnings.push(`nvidia-smi: unexpected line: ${shorten(line)}`);
      continue;
    }
    const cells = new Map(raw.map((c, i) => [fields[i] as string, readCell(c)] as const));
    const uuid = valueOf(cells.get('uuid'));
    const memory = parseFloat(valueOf(cells.get('memory.total')) ?? ''); // "81559", or "81559 MiB" with units
    const problems = healthProblems(cells);
    const busId = valueOf(cells.get('pci.bus_id'));
    if (busId !== undefined) busIds.set(index, busId);
    gpus.push({
      index,
      ...(uuid === undefined ? {} : { uuid }),
      name: valueOf(cells.get('name')) ?? 'unknown',
      ...(Number.isFinite(memory) && memory > 0 ? { memoryMiB: Math.round(memory) } : {}),
      healthy: problems.length === 0,
      ...(problems.length === 0 ? {} : { reason: problems.join('; ') }),
    });
  }
  gpus.sort((a, b) => a.index - b.index);
  return { gpus, warnings, busIds };
}

function valueOf(cell: Cell | undefined): string | undefined {
  return cell?.kind === 'value' ? cell.text : undefined;
}

/** `nvidia-smi --query-compute-apps=gpu_uuid,pid --format=csv,noheader`: the processes using each GPU. */
export const COMPUTE_APPS_ARGS = ['--query-compute-apps=gpu_uuid,pid', '--format=csv,noheader'];

export interface ComputeApp {
  gpuUuid: string;
  pid: number;
}

/**
 * Every row, or why the listing cannot be trusted. One line that is not a row
 * makes the whole listing unknown rather than partial: a count that silently
 * missed a process would call a busy GPU free.
 */
export function parseComputeApps(text: string): { apps: ComputeApp[] } | { error: string } {
  const apps: ComputeApp[] = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    // Some driver versions say so in words instead of printing nothing.
    if (t === '' || /^no running (compute )?processes found$/i.test(t)) continue;
    const cells = t.split(',').map((c) => c.trim());
    if (cells[0] === 'gpu_uuid') continue; // a header, from a wrapper that forgot noheader
    const pid = Number(cells[1]);
    if (cells.length !== 2 || cells[0] === '' || !/^\d+$/.test(cells[1] ?? '') || !Number.isSafeInteger(pid) || pid <= 0) {
      return { error: `unexpected compute-apps line: ${shorten(line)}` };
    }
    apps.push({ gpuUuid: cells[0] as string, pid });
  }
  return { apps };
}
