// Bounds on what a Slurm controller's output may make llmgw hold: its JSON and
// text are read defensively (a cluster is not ours, nor its users' job names).

/** Nodes read from `sinfo --json`; a bigger cluster is refused, not half-read. */
export const MAX_SLURM_NODES = 100_000;
/** Jobs read from `squeue --json` (22.05 lists ended jobs too, for MinJobAge). */
export const MAX_SLURM_JOBS = 200_000;
export const MAX_SLURM_RESERVATIONS = 10_000;
/** Reservations kept per node in the view: more would only repeat the answer. */
export const MAX_RESERVATIONS_PER_NODE = 8;
/** Names, states, reasons: longer is clipped. */
export const MAX_SLURM_TEXT = 200;
/** GPUs one job may ask for per node or in all; more is read as this (no real job is near it). */
export const MAX_JOB_GPUS = 1_000_000;
/** Pending job ids kept in the view, for the commit message of a yield. */
export const MAX_PENDING_IDS = 100;
/** Node names all reservations together may expand to (each is a hostlist). */
export const MAX_RESERVED_NAMES = 1_000_000;
/** A pending job's `--nodelist`/`--exclude` hostlist, as text; a longer one is read as none given. */
export const MAX_HOSTLIST_TEXT = 100_000;
