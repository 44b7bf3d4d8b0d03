// `scontrol show reservation` (there is no --json for it in 22.05) -> each
// reservation's name, nodes, times, flags and state. Its text is blocks of
// `Key=Value` words separated by blank lines; values hold no spaces, apart from
// the `(null)` Slurm prints for nothing. Times: gather runs it with
// SLURM_TIME_FORMAT=%s, so they are seconds since the epoch; any other format
// (a local time without a zone) is not guessed at: State= then decides.

import { parseHostlist } from '../config/hostlist.js';
import { MAX_RESERVED_NAMES, MAX_SLURM_RESERVATIONS } from './limits.js';
import { SlurmParseError } from './parse-error.js';
import { slurmText } from './text.js';

export interface Reservation {
  name: string;
  /** Slurm node names; empty for a reservation of no nodes (licenses, say). */
  nodes: string[];
  start: string | null;
  end: string | null;
  /** Slurm's State=ACTIVE when read. */
  active: boolean;
  /** Lowercase: maint, spec_nodes, … */
  flags: string[];
}

function epochIso(v: string | undefined): string | null {
  if (v === undefined || !/^[0-9]{1,12}$/.test(v)) return null;
  const d = new Date(Number(v) * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function fields(block: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const word of block.split(/\s+/)) {
    const eq = word.indexOf('=');
    if (eq <= 0) continue;
    const key = word.slice(0, eq);
    if (!m.has(key)) m.set(key, word.slice(eq + 1));
  }
  return m;
}

export function parseReservations(text: string): Reservation[] {
  // "No reservations in the system" is the whole output when there are none.
  if (/^\s*No reservations in the system\s*$/.test(text)) return [];
  const blocks = text.split(/\n\s*\n/).filter((b) => b.trim() !== '');
  if (blocks.length > MAX_SLURM_RESERVATIONS) throw new SlurmParseError(`\`scontrol show reservation\` lists more than ${MAX_SLURM_RESERVATIONS} reservations`);
  const out: Reservation[] = [];
  let names = 0;
  for (const block of blocks) {
    const f = fields(block);
    const name = slurmText(f.get('ReservationName'));
    if (name === '') throw new SlurmParseError('`scontrol show reservation` gave a block without ReservationName');
    const nodeList = f.get('Nodes') ?? '';
    let nodes: string[] = [];
    if (nodeList !== '' && nodeList !== '(null)') {
      const parsed = parseHostlist(nodeList);
      if (!parsed.ok) throw new SlurmParseError(`reservation ${name}: Nodes=${slurmText(nodeList)}: ${parsed.error}`);
      names += parsed.count;
      if (names > MAX_RESERVED_NAMES) throw new SlurmParseError(`\`scontrol show reservation\` names more than ${MAX_RESERVED_NAMES} nodes in all`);
      nodes = parsed.expand();
    }
    const flags = (f.get('Flags') ?? '')
      .split(',')
      .filter((w) => w !== '' && w !== '(null)')
      .slice(0, 32)
      .map((w) => slurmText(w).toLowerCase());
    out.push({ name, nodes, start: epochIso(f.get('StartTime')), end: epochIso(f.get('EndTime')), active: f.get('State') === 'ACTIVE', flags });
  }
  return out;
}
