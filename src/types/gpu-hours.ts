// GPU-hours of closed UTC days, as STATUS.md, the status JSON and the console
// show them (docs/status.md#gpu-hours). Plain data: src/ledger computes it from
// the committed history, src/views/status renders it (and reads it back from a
// STATUS.md, so a later tick of the same day and `plan --base` copy it).

/** GPU-hours of one model in one span, two decimals. */
export interface ModelDayHours {
  model: string;
  serving: number;
  idle: number;
  /** idle / (serving + idle), two decimals; null when both are 0. */
  idleShare: number | null;
}

/** The fleet's GPU-hours in one span, every bucket of `llmgw report`, two decimals. */
export interface FleetDayHours {
  serving: number;
  idle: number;
  transit: number;
  free: number;
  unhealthy: number;
  other: number;
  unreachable: number;
  cordoned: number;
  unobserved: number;
  /** idle / (serving + idle), two decimals; null when both are 0. */
  idleShare: number | null;
}

export interface SpanHours {
  /** Inclusive, UTC ISO (a midnight). */
  since: string;
  /** Exclusive, UTC ISO (a midnight). */
  until: string;
  /** Sorted by name. */
  models: ModelDayHours[];
  fleet: FleetDayHours;
}

export interface ClosedDaysHours {
  /** The UTC date (YYYY-MM-DD) whose first tick computed it; every later tick that date copies it unchanged. */
  computedOn: string;
  /** The UTC day before computedOn. */
  yesterday: SpanHours;
  /** The 7 UTC days before computedOn. */
  last7Days: SpanHours;
  /**
   * Set only where figures are shown ahead of the tick that recomputes them (a
   * plan or `llmgw status` on a later UTC date than computedOn): that date. A
   * commit never carries it.
   */
  recomputedOn?: string;
}
