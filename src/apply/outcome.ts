// What an apply did, as plain data: printed by `llmgw apply`, summarised in the
// reconcile commit message, and turned into state (start failures) and events.

export type ActionStatus =
  /** Every node it touched answered ok. */
  | 'ok'
  /** Some node refused or could not be reached; see `error`. */
  | 'failed'
  /** A stop whose waitFor replicas are not all running yet: a later tick does it. */
  | 'deferred';

export interface ActionResult {
  op: 'start' | 'stop';
  replica: string;
  model: string;
  status: ActionStatus;
  /** Nodes of the action, rank order. */
  nodes: string[];
  /** One line per failed node, `node: error`; absent when ok. */
  error?: string;
  /** For a deferred stop: the replicas it still waits for. */
  waitingFor?: string[];
  /** For a stop deferred for another reason than waitFor (a router that kept its old table). */
  reason?: string;
  /** `drain`: a stop whose part this tick was taking the replica out of the tables. */
  phase?: 'drain';
  /** Jobs mode: a start's Slurm job ids, rank order (what `sbatch --parsable` printed). */
  slurmJobs?: string[];
}

/** One failure on one host: an agent's start or stop, or a router's table. */
export interface ApplyFailure {
  op: 'start' | 'stop' | 'endpoints';
  /** null for a router table. */
  replica: string | null;
  model: string | null;
  /** The node or router name. */
  host: string;
  error: string;
  /** A start's port (src/plan/recent-failures.ts leaves it aside on that node). */
  port?: number;
}

export interface RouterTableResult {
  router: string;
  ok: boolean;
  error?: string;
}

export interface ApplyOutcome {
  /** In plan order. */
  results: ActionResult[];
  failures: ApplyFailure[];
  /** The last table push per router (a tick may push twice: before freeing stops, and after starts). */
  routerTables: RouterTableResult[];
  started: number;
  /** Processes stopped (drains begun are not among them). */
  stopped: number;
  /** Drains begun: out of the routers' tables, stopped by a later tick. Absent: none. */
  drained?: number;
  deferred: number;
  failed: number;
}

/** An outcome of nothing applied (a blocked plan, uncommitted edits). */
export function emptyOutcome(): ApplyOutcome {
  return { results: [], failures: [], routerTables: [], started: 0, stopped: 0, deferred: 0, failed: 0 };
}
