// Engine sockets, bounded per model and in total (docs/operations.md#limits).
// Each attempt in flight holds one engine connection (undici, pipelining 1),
// so counting attempts bounds the sockets: a flood on one model cannot take
// every descriptor and leave other models' clients with EMFILE. Over a bound
// the request is refused at once with 503 (as Envoy's circuit breakers do);
// the refusal is the router's, never a replica's error.

export class EngineSlots {
  private total = 0;
  private readonly perModel = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerModel: number,
  ) {}

  take(model: string): boolean {
    const used = this.perModel.get(model) ?? 0;
    if (this.total >= this.maxTotal || used >= this.maxPerModel) return false;
    this.total++;
    this.perModel.set(model, used + 1);
    return true;
  }

  give(model: string): void {
    this.total--;
    // give() follows a take() of the same model: the count is there.
    const used = (this.perModel.get(model) ?? 0) - 1;
    if (used === 0) this.perModel.delete(model);
    else this.perModel.set(model, used);
  }
}

/**
 * The default total: 10,000, or less when the open-file limit is lower — each
 * proxied request holds a client and an engine descriptor, so engines get at
 * most half of what the limit leaves after a reserve for the rest of the process.
 */
export function defaultEngineConnections(openFileLimit: number | null): number {
  const cap = 10_000;
  if (openFileLimit === null) return cap;
  return Math.max(16, Math.min(cap, Math.floor((openFileLimit - 64) / 2)));
}
