// Slurm's view, read over SSH on `slurm.host` with the fleet's own ssh settings
// (docs/slurm.md): three fixed command lines, nothing from the repo in them.
// Any failure (SSH, a non-zero exit, output that is not what 22.05 prints)
// makes the view unreachable, the last one kept for lostAfter.

import type { Config } from '../types/config.js';
import type { SlurmView } from '../types/snapshot.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { SshError } from '../errors.js';
import { parseReservations } from '../slurm/reservations.js';
import { parseSinfo } from '../slurm/sinfo.js';
import { parseSqueue } from '../slurm/squeue.js';
import { SlurmParseError } from '../slurm/parse-error.js';
import { buildSlurmView, unreachableSlurmView } from '../slurm/view.js';

/** `env` sets the variable in any login shell (sh, csh, fish); %s gives reservation times with no time zone to guess. */
export const SLURM_COMMANDS = {
  sinfo: 'sinfo --json',
  squeue: 'squeue --json',
  reservations: 'env SLURM_TIME_FORMAT=%s scontrol show reservation',
} as const;

function errorLine(err: unknown): string {
  const message =
    err instanceof SshError || err instanceof SlurmParseError ? err.message : `internal error: ${(err as Error | null | undefined)?.message ?? String(err)}`;
  return message.split('\n', 1)[0] ?? '';
}

/** undefined without cluster.yaml `slurm:` (the snapshot then has no `slurm` at all). */
export async function observeSlurm(config: Config, transport: Transport, previous: SlurmView | undefined, now: Date): Promise<SlurmView | undefined> {
  const slurm = config.cluster.slurm;
  if (slurm === undefined) return undefined;
  const target: HostTarget = { name: `slurm host ${slurm.host}`, host: slurm.host, port: slurm.port };
  const observedAt = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  try {
    const [sinfo, squeue, reservations] = await Promise.all([
      transport.run(target, SLURM_COMMANDS.sinfo, ''),
      transport.run(target, SLURM_COMMANDS.squeue, ''),
      transport.run(target, SLURM_COMMANDS.reservations, ''),
    ]);
    const readings = { sinfo: parseSinfo(sinfo), squeue: parseSqueue(squeue), reservations: parseReservations(reservations) };
    return buildSlurmView(
      slurm,
      config.cluster.nodes.map((n) => n.name),
      readings,
      observedAt,
    );
  } catch (err) {
    return unreachableSlurmView(previous, errorLine(err), now, config.cluster.lostAfterMs, slurm.partition);
  }
}
