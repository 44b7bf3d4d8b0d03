// Slurm's strings as llmgw keeps them: one line, printable, length-bounded.

import { MAX_SLURM_TEXT } from './limits.js';

/** Control characters become spaces (a reason is shown in STATUS.md), the rest is clipped. */
export function slurmText(v: unknown): string {
  if (typeof v !== 'string') return '';
  const flat = v.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > MAX_SLURM_TEXT ? flat.slice(0, MAX_SLURM_TEXT - 1) + '…' : flat;
}

/** Slurm's state and flags, lowercase, joined by '+': `idle+drain`. */
export function stateWords(state: unknown, flags: unknown): string {
  const words = [state, ...(Array.isArray(flags) ? (flags as unknown[]) : [])].filter((w): w is string => typeof w === 'string' && w !== '');
  return words.map((w) => slurmText(w).toLowerCase()).join('+');
}
