// What the router counts per model for its metrics (metrics.ts): plain numbers
// bumped on the request path and read only when /metrics is scraped, so a router
// nobody scrapes pays a few additions per request and nothing more.

/** The model label of requests that named no model of the table (bad JSON, an unknown model, another path). */
export const NO_MODEL = '-';

export interface ModelStats {
  readonly model: string;
  /** Client requests of this model between being routed and their answer's end. */
  inflight: number;
  /** status code -> requests answered with it (499: the client left first). */
  readonly codes: Map<number, number>;
  /** Where request durations go (a histogram child), or null when metrics are off. */
  readonly durations: { observe(seconds: number): void } | null;
}

export class RouterStats {
  readonly models = new Map<string, ModelStats>();

  /** `histogram(model)` is asked once per model for the sink of its durations. */
  constructor(private readonly histogram: ((model: string) => { observe(seconds: number): void }) | null = null) {}

  forModel(model: string): ModelStats {
    let s = this.models.get(model);
    if (!s) {
      s = { model, inflight: 0, codes: new Map(), durations: this.histogram ? this.histogram(model) : null };
      this.models.set(model, s);
    }
    return s;
  }

  /** One request answered: `status` sent (or 499), `startedMs` from performance.now() at its arrival. */
  record(s: ModelStats, status: number, startedMs: number): void {
    s.codes.set(status, (s.codes.get(status) ?? 0) + 1);
    if (s.durations) s.durations.observe((performance.now() - startedMs) / 1000);
  }
}
