// The nodes Slurm keeps llmgw off (docs/slurm.md#the-node-condition-slurm), for
// status JSON's `nodes.slurm` and one attention line each, in Slurm's words:
// `gpu-a03: Slurm idle+drain — bad fan`.

import { plural } from '../text/format.js';
import type { Fleet } from '../types/fleet.js';
import type { AttentionItem, SlurmNodeRow, StatusFacts } from './types.js';

/** Nodes of the fleet in the condition `slurm`, by name; undefined without cluster.yaml `slurm:` (the key is then absent). */
export function slurmNodeRows(fleet: Fleet): SlurmNodeRow[] | undefined {
  if (fleet.config.cluster.slurm === undefined) return undefined;
  return fleet.nodes.flatMap((n) =>
    n.slurm?.condition === undefined ? [] : [{ node: n.name, state: n.slurm.condition.state, reason: n.slurm.condition.reason }],
  );
}

/** One line per node, at most `max`; past that one line counts the rest. */
export function slurmAttention(facts: Pick<StatusFacts, 'nodes'>, max: number): AttentionItem[] {
  const rows = facts.nodes.slurm ?? [];
  const lines = rows.map((r) => `${r.node}: Slurm ${r.state}${r.reason === '' ? '' : ` — ${r.reason}`}`);
  const out = lines.slice(0, max).map((text): AttentionItem => ({ kind: 'slurm', text, subjects: [] }));
  if (lines.length > max) {
    out.push({ kind: 'slurm', text: `${plural(lines.length - max, 'more node')} Slurm keeps llmgw off (llmgw status --json: nodes.slurm)`, subjects: [] });
  }
  return out;
}
