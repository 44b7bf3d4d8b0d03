// GPU faults from the kernel log (docs/protocol.md#gpu-faults): the NVIDIA driver
// logs an Xid for every fault it sees, often long before nvidia-smi's counters
// show anything (Xid 79, "fallen off the bus", leaves no ECC count behind).
// The agent reports every Xid on its GPU since its last report; what a code
// means (quarantine or not) is the reconciler's to decide, not the node's.
//
//   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
//
// Pure parsing here; kernel-log-source.ts reads the log.

/** One Xid line: its time, the GPU's PCI address as the driver writes it, the code. */
export interface XidLine {
  at: string;
  domain: number;
  bus: number;
  device: number;
  code: number;
}

/** At most this many Xids per GPU per report, the newest: a GPU in an error storm logs thousands. */
export const MAX_XIDS_PER_GPU = 100;

// `PCI:` is absent in some older drivers' lines; the function number is absent in most.
const XID = /NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.[0-7])?\): (\d{1,5})\b/;
// journalctl -o short-iso(-precise) and dmesg --time-format iso: `2026-12-01T08:00:00,123456+00:00 `.
const ISO_PREFIX = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})\s/;

/** The time a log line starts with, in ms; null when it has none that parses. */
export function lineTime(line: string): number | null {
  const m = ISO_PREFIX.exec(line);
  if (!m) return null;
  const frac = m[2] === undefined ? '' : `.${m[2].slice(0, 3).padEnd(3, '0')}`;
  const tz = m[3] ?? 'Z'; // the group is not optional: a match has it
  const zone = tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.slice(-2)}`;
  const ms = Date.parse(`${m[1] ?? ''}${frac}${zone}`);
  return Number.isFinite(ms) ? ms : null;
}

/** At most this many untimed Xid lines are remembered between reports (each once seen, never again). */
export const MAX_UNTIMED_SEEN = 1000;

/**
 * The Xid lines logged in (sinceMs, untilMs]. A line without a time it can read
 * (a test's fixture, plain `dmesg`'s `[  812.345678]`) cannot be placed in that
 * span, so it is reported once, the first time it is seen, at `untilMs`: `seen`
 * holds the keys of such lines the last report saw, and `untimed` the keys of
 * this text's (its n-th copy of a line is another line). Reporting an old fault
 * again would quarantine a GPU a person released; missing one would leave a
 * broken GPU in use.
 */
export function parseXids(text: string, sinceMs: number, untilMs: number, seen: ReadonlySet<string> = new Set()): { xids: XidLine[]; untimed: string[] } {
  const xids: XidLine[] = [];
  const untimed: string[] = [];
  const copies = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.includes('NVRM: Xid')) continue;
    const m = XID.exec(line);
    if (!m) continue;
    let t = lineTime(line);
    if (t === null) {
      const body = line.trim().slice(0, 300);
      const n = (copies.get(body) ?? 0) + 1;
      copies.set(body, n);
      const key = `${n}:${body}`;
      untimed.push(key);
      if (seen.has(key)) continue;
      t = untilMs;
    } else if (t <= sinceMs || t > untilMs) continue;
    xids.push({
      at: new Date(t).toISOString(),
      domain: parseInt(m[1] ?? '', 16),
      bus: parseInt(m[2] ?? '', 16),
      device: parseInt(m[3] ?? '', 16),
      code: Number(m[4]),
    });
  }
  return { xids, untimed: untimed.slice(-MAX_UNTIMED_SEEN) };
}

/** `00000000:3B:00.0` (nvidia-smi) as numbers; null when it is not a bus id. */
export function parseBusId(busId: string): { domain: number; bus: number; device: number } | null {
  const m = /^([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.[0-7])?$/.exec(busId.trim());
  return m ? { domain: parseInt(m[1] ?? '', 16), bus: parseInt(m[2] ?? '', 16), device: parseInt(m[3] ?? '', 16) } : null;
}

/**
 * Each GPU index's Xids, oldest first, at most MAX_XIDS_PER_GPU (the newest);
 * matched by domain, bus and device (nvidia-smi pads the domain to 8 digits and
 * writes upper case, the driver 4 and lower case: compared as numbers). Lines for
 * a bus no GPU has are named in the warnings.
 */
export function xidsByGpu(lines: XidLine[], busIds: Map<number, string>): { byGpu: Map<number, { code: number; at: string }[]>; warnings: string[] } {
  const gpuAt = new Map<string, number>();
  for (const [index, id] of busIds) {
    const p = parseBusId(id);
    if (p) gpuAt.set(`${p.domain}:${p.bus}:${p.device}`, index);
  }
  const byGpu = new Map<number, { code: number; at: string }[]>();
  const unmatched = new Map<string, number>();
  for (const l of lines) {
    const index = gpuAt.get(`${l.domain}:${l.bus}:${l.device}`);
    const pci = `${l.domain.toString(16).padStart(4, '0')}:${l.bus.toString(16).padStart(2, '0')}:${l.device.toString(16).padStart(2, '0')}`;
    if (index === undefined) unmatched.set(pci, (unmatched.get(pci) ?? 0) + 1);
    else byGpu.set(index, [...(byGpu.get(index) ?? []), { code: l.code, at: l.at }]);
  }
  const warnings: string[] = [...unmatched].map(
    ([pci, n]) => `kernel log: ${n} Xid line${n === 1 ? '' : 's'} for PCI:${pci}, which is no GPU nvidia-smi lists`,
  );
  for (const [index, xids] of byGpu) {
    xids.sort((a, b) => a.at.localeCompare(b.at));
    if (xids.length > MAX_XIDS_PER_GPU) {
      warnings.push(`kernel log: GPU ${index} logged ${xids.length} Xids since the last report; the newest ${MAX_XIDS_PER_GPU} are reported`);
      byGpu.set(index, xids.slice(-MAX_XIDS_PER_GPU));
    }
  }
  return { byGpu, warnings };
}
