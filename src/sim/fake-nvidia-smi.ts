// Fixture GPUs for the fake nvidia-smi (src/sim/fake-nvidia-smi.sh): a node in
// the simulated fleet gets
//   LLMGW_NVIDIA_SMI=<fakeNvidiaSmiPath()>  LLMGW_FAKE_GPUS=<fixture file>
// and the real agent code reads these rows as if from the driver: the GPUs
// (`--query-gpu`) and the processes on them (`--query-compute-apps`).

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GPU_FIELDS } from '../agent/nvidia-smi-csv.js';
import { writeFileAtomic } from '../util/fs.js';

export interface FakeGpu {
  name: string;
  memoryMiB?: number;
  uuid?: string;
  /** PCI bus id as `nvidia-smi --query-gpu=pci.bus_id` prints it; default `fakeBusId(index)`. Kernel-log Xids name it. */
  busId?: string;
  /** How it is broken, as nvidia-smi would show it. */
  unhealthy?: 'ecc' | 'retired' | 'remapped' | 'error';
  /**
   * Pids of the compute processes on it (`--query-compute-apps`): a pid the
   * agent did not start (any number, even one no process has) counts as foreign.
   */
  processes?: number[];
}

export interface FakeGpuOptions {
  /** `--query-compute-apps` fails (an old or broken driver): foreign becomes unknown. */
  computeAppsFail?: boolean;
}

/**
 * The committed shell wrapper. tsc does not copy .sh files, so this resolves
 * into the source tree from the package root (dist/src/sim/ → ../../../src/sim/).
 */
export function fakeNvidiaSmiPath(): string {
  return fileURLToPath(new URL('../../../src/sim/fake-nvidia-smi.sh', import.meta.url));
}

/**
 * The agent env entries that make a node see the GPUs of `fixture`, and a
 * kernel log of its own beside it (`<fixture>.kernel.log`, empty until a test
 * writes Xids to it, src/sim/fake-kernel-log.ts): a simulated node never reads
 * the log of the machine it runs on.
 */
export function fakeGpuEnv(fixture: string): Record<string, string> {
  return { LLMGW_NVIDIA_SMI: fakeNvidiaSmiPath(), LLMGW_FAKE_GPUS: fixture, LLMGW_KERNEL_LOG: fakeKernelLogPath(fixture) };
}

/** Where fakeGpuEnv's node reads its kernel log. */
export function fakeKernelLogPath(fixture: string): string {
  return `${resolve(fixture)}.kernel.log`;
}

function fakeUuid(index: number, gpu: FakeGpu): string {
  return gpu.uuid ?? `GPU-00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** GPU i sits on bus i + 1: `00000000:01:00.0` for GPU 0, `00000000:03:00.0` for GPU 2 (an Xid for it says `PCI:0000:03:00`). */
export function fakeBusId(index: number): string {
  return `00000000:${(index + 1).toString(16).toUpperCase().padStart(2, '0')}:00.0`;
}

/** One CSV row in GPU_FIELDS order, as `--format=csv,noheader,nounits` prints it. */
export function fakeGpuRow(index: number, gpu: FakeGpu): string {
  const uuid = fakeUuid(index, gpu);
  const row: Record<(typeof GPU_FIELDS)[number], string> = {
    index: String(index),
    uuid,
    name: gpu.name,
    'memory.total': String(gpu.memoryMiB ?? 81559),
    'ecc.errors.uncorrected.volatile.total': gpu.unhealthy === 'ecc' ? '2' : '0',
    'retired_pages.pending': gpu.unhealthy === 'retired' ? 'Yes' : 'No',
    'remapped_rows.failure': gpu.unhealthy === 'remapped' ? 'Yes' : 'No',
    'pci.bus_id': gpu.busId ?? fakeBusId(index),
  };
  if (gpu.unhealthy === 'error') {
    row['ecc.errors.uncorrected.volatile.total'] = '[GPU requires reset]';
    row['retired_pages.pending'] = '[GPU requires reset]';
  }
  return GPU_FIELDS.map((f) => row[f]).join(', ');
}

/**
 * The fixture: GPU rows, then (when any GPU has processes, or the query is to
 * fail) a `# compute-apps` line and one `uuid, pid` row per process. A fixture
 * of GPU rows alone, as before, lists no compute processes.
 */
export function fakeGpuFixture(gpus: FakeGpu[], opts: FakeGpuOptions = {}): string {
  const rows = gpus.map((g, i) => fakeGpuRow(i, g) + '\n').join('');
  if (opts.computeAppsFail) return `${rows}# compute-apps: fail\n`;
  const apps = gpus.flatMap((g, i) => (g.processes ?? []).map((pid) => `${fakeUuid(i, g)}, ${pid}\n`));
  return apps.length === 0 ? rows : `${rows}# compute-apps\n${apps.join('')}`;
}

export async function writeFakeGpus(path: string, gpus: FakeGpu[], opts: FakeGpuOptions = {}): Promise<void> {
  await writeFileAtomic(path, fakeGpuFixture(gpus, opts));
}
