// Replica ids are `<model>-<n>` with the lowest n that no replica the snapshot
// knows of holds — on reachable, unreachable or lost nodes alike — so a lost
// node that comes back cannot bring a twin of a new replica with it.

/** The n of `<model>-<n>`, or -1 when the id is not of that form. */
export function replicaNumber(id: string, model: string): number {
  if (!id.startsWith(model + '-')) return -1;
  const rest = id.slice(model.length + 1);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : -1;
}

/** Hands out fresh ids; remembers the ones it handed out. */
export function idAllocator(taken: Iterable<string>): (model: string) => string {
  const used = new Set(taken);
  const next = new Map<string, number>();
  return (model) => {
    let n = next.get(model) ?? 0;
    while (used.has(`${model}-${n}`)) n++;
    const id = `${model}-${n}`;
    used.add(id);
    next.set(model, n + 1);
    return id;
  };
}

/** Order replica ids of one model by n (ids of another form last, by name). */
export function byReplicaNumber(model: string): (a: string, b: string) => number {
  return (a, b) => {
    const na = replicaNumber(a, model);
    const nb = replicaNumber(b, model);
    if (na !== nb) return (na < 0 ? Infinity : na) - (nb < 0 ? Infinity : nb);
    return compareNames(a, b);
  };
}

/** Plain code-unit order: the same on every machine, unlike localeCompare. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
