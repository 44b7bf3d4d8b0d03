// `sinfo --json` (Slurm 22.05, data parser v0.0.38) -> each node's state, reason,
// partitions and GPUs. 22.05 gives the base state and its flags apart
// (`"state":"idle","state_flags":["DRAIN"]`); later versions put both in one
// `state` list: both shapes are read, so an upgrade does not blind llmgw.

import { MAX_SLURM_NODES } from './limits.js';
import { objectAt, parseJsonObject, SlurmParseError } from './parse-error.js';
import { gpusInGres } from './gres.js';
import { slurmText, stateWords } from './text.js';

export interface SinfoNode {
  name: string;
  /** Lowercase, joined by '+': `idle+drain`. */
  state: string;
  reason: string;
  partitions: string[];
  gpus: number;
}

function nodeState(n: Record<string, unknown>): string {
  // v0.0.39+: `state` is a list of words, base state first.
  if (Array.isArray(n.state)) return stateWords(n.state[0], n.state.slice(1));
  return stateWords(n.state, n.state_flags);
}

export function parseSinfo(text: string): SinfoNode[] {
  const doc = parseJsonObject('sinfo --json', text);
  if (!Array.isArray(doc.nodes)) throw new SlurmParseError('`sinfo --json` gave no nodes list');
  if (doc.nodes.length > MAX_SLURM_NODES) throw new SlurmParseError(`\`sinfo --json\` lists more than ${MAX_SLURM_NODES} nodes`);
  const out: SinfoNode[] = [];
  for (const item of doc.nodes) {
    const n = objectAt(item);
    const name = slurmText(n.name);
    if (name === '') continue;
    const partitions = Array.isArray(n.partitions)
      ? n.partitions
          .slice(0, 64)
          .map(slurmText)
          .filter((p) => p !== '')
      : [];
    out.push({ name, state: nodeState(n), reason: slurmText(n.reason), partitions, gpus: gpusInGres(n.gres) });
  }
  return out;
}
