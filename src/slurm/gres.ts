// GPU counts in Slurm's GRES strings: `gpu:4`, `gpu:h100:4(IDX:0-3)`,
// `gres:gpu:8`, several comma-separated (`gpu:a100:2(IDX:0-1),gpu:h100:1(IDX:2)`)
// and other resources beside them (`gres:shard:2`). Only `gpu` counts.

import { MAX_JOB_GPUS } from './limits.js';

/** The parts of a GRES list: commas inside parentheses (`IDX:0,2`) do not split. */
function parts(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** The GPUs a GRES string names, summed over its parts; 0 for none, `N/A`, or anything unreadable. */
export function gpusInGres(v: unknown): number {
  if (typeof v !== 'string' || v.length > 10_000) return 0;
  let total = 0;
  for (const raw of parts(v)) {
    const part = raw.trim().replace(/\(.*$/, '');
    const fields = part.split(':');
    if (fields[0] === 'gres') fields.shift();
    if (fields[0] !== 'gpu' || fields.length < 2) continue;
    const count = fields.at(-1) ?? '';
    // `gpu:h100` alone is a type with no count: one, as Slurm reads it; a count past 9 digits is no real count.
    let n: number;
    if (/^[0-9]{1,9}$/.test(count)) n = Number(count);
    else if (/^[0-9]+$/.test(count)) n = 0;
    else n = fields.length === 2 ? 1 : 0;
    total = Math.min(MAX_JOB_GPUS, total + n);
  }
  return total;
}

/** GPU indices one node can have: more in an IDX list is not a real node. */
const MAX_INDEX = 4096;

/**
 * The GPU indices in a gres_detail entry (`gpu:4(IDX:0-3)`, `gpu:h100:2(IDX:0,2)`,
 * several comma-separated), sorted and unique; none for `IDX:N/A` or anything
 * unreadable. Slurm's index is the position of the GPU's File= in gres.conf.
 */
export function gpuIndicesInGres(v: unknown): number[] {
  if (typeof v !== 'string' || v.length > 10_000) return [];
  const out = new Set<number>();
  for (const raw of parts(v)) {
    const part = raw.trim();
    const fields = part.replace(/\(.*$/, '').split(':');
    if (fields[0] === 'gres') fields.shift();
    if (fields[0] !== 'gpu') continue;
    const idx = /\(IDX:([0-9,-]+)\)/.exec(part)?.[1];
    if (idx === undefined) continue;
    for (const range of idx.split(',')) {
      const m = /^([0-9]{1,4})(?:-([0-9]{1,4}))?$/.exec(range);
      if (!m) continue;
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      for (let i = from; i <= Math.min(to, MAX_INDEX - 1); i++) out.add(i);
    }
  }
  return [...out].sort((a, b) => a - b);
}
