// Durations as written in cluster.yaml (docs/config.md): `90s`, `10m`, `6h`, `2d`,
// or a combination with units largest first (`1h30m`, `2d12h`).

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
const DURATION = /^(?=[0-9])(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/;

/** Whether `s` is written as a duration, however large. */
export function isDurationSyntax(s: string): boolean {
  return DURATION.test(s);
}

/** Milliseconds, or null when `s` is not a duration (or too large to count in ms exactly). */
export function parseDuration(s: string): number | null {
  const m = DURATION.exec(s);
  if (!m) return null;
  const [, d, h, min, sec] = m;
  const ms = Number(d ?? 0) * UNIT_MS.d + Number(h ?? 0) * UNIT_MS.h + Number(min ?? 0) * UNIT_MS.m + Number(sec ?? 0) * UNIT_MS.s;
  return Number.isSafeInteger(ms) ? ms : null;
}
