// What the router counts per model for its metrics (metrics.ts): plain numbers
// bumped on the request path — whether or not --metrics is on, so turning it on
// changes nothing there — and read only when /metrics is scraped.

/** The model label of requests that named no model of the table (bad JSON, an unknown model, another path). */
export const NO_MODEL = '-';

/** Seconds: from a quick refusal to a long streamed answer. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export interface ModelStats {
  readonly model: string;
  /** Client requests of this model between being routed and their answer's end. */
  inflight: number;
  /** status code -> requests answered with it (499: the client left first). */
  readonly codes: Map<number, number>;
  /** Durations per bucket of DURATION_BUCKETS (not cumulative); longer ones only in `count`. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

export class RouterStats {
  readonly models = new Map<string, ModelStats>();

  forModel(model: string): ModelStats {
    let s = this.models.get(model);
    if (!s) {
      s = { model, inflight: 0, codes: new Map(), buckets: new Float64Array(DURATION_BUCKETS.length), sum: 0, count: 0 };
      this.models.set(model, s);
    }
    return s;
  }

  /** One request answered: `status` sent (or 499), `startedMs` from performance.now() at its arrival. */
  record(s: ModelStats, status: number, startedMs: number): void {
    s.codes.set(status, (s.codes.get(status) ?? 0) + 1);
    const seconds = (performance.now() - startedMs) / 1000;
    s.sum += seconds;
    s.count++;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      // i < DURATION_BUCKETS.length = s.buckets.length: the fallbacks only narrow.
      if (seconds <= (DURATION_BUCKETS[i] ?? Infinity)) {
        s.buckets[i] = (s.buckets[i] ?? 0) + 1;
        break;
      }
    }
  }
}
