// A fake kernel log for the simulated fleet and tests (docs/simulation.md#the-fake-kernel-log):
// lines exactly as `journalctl -k -o short-iso-precise` prints the NVIDIA driver's
// Xid messages, appended to the file the node's $LLMGW_KERNEL_LOG names
// (fakeGpuEnv gives each node one: fakeKernelLogPath).

import { appendFile } from 'node:fs/promises';

/** What the driver says for a few codes; any other code gets a generic text (the agent reads only the code). */
const XID_TEXT: Record<number, string> = {
  13: 'Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address',
  31: 'Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f1c_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_READ',
  48: 'An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.',
  79: 'GPU has fallen off the bus.',
  94: 'Contained: SM (0x1). RST: No, D-RST: No',
  95: 'Uncontained: FBHUB. RST: Yes, D-RST: No',
};

/** `00000000:3B:00.0` (nvidia-smi) → `0000:3b:00` (how the driver names the GPU in an Xid line). */
export function driverPci(busId: string): string {
  const [domain = '0', bus = '0', devFn = '0'] = busId.split(':');
  const device = devFn.split('.')[0] ?? '0';
  return `${domain.slice(-4).padStart(4, '0')}:${bus.padStart(2, '0')}:${device.padStart(2, '0')}`.toLowerCase();
}

/** One line: `2026-12-01T08:00:00.000000+00:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.` */
export function xidLine(at: Date, busId: string, code: number, opts: { host?: string; pid?: number } = {}): string {
  const time = at.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
  const text = XID_TEXT[code] ?? 'Unknown Error';
  const pid = opts.pid === undefined ? "pid='<unknown>', name=<unknown>" : `pid=${opts.pid}, name=python3`;
  return `${time} ${opts.host ?? 'gpu-sim'} kernel: NVRM: Xid (PCI:${driverPci(busId)}): ${code}, ${pid}, ${text}`;
}

/** Appends Xid lines to a node's fake kernel log, as the driver would. */
export async function logXid(path: string, entries: { at: Date; busId: string; code: number; pid?: number }[]): Promise<void> {
  await appendFile(path, entries.map((e) => xidLine(e.at, e.busId, e.code, { pid: e.pid }) + '\n').join(''));
}
