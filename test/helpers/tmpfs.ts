// A tiny tmpfs for disk-full tests: real ENOSPC from the kernel. Needs root
// (mount); elsewhere `mountTmpfs` resolves null and the test says which way it ran.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Tmpfs {
  dir: string;
  unmount(): Promise<void>;
}

export async function mountTmpfs(sizeKiB: number): Promise<Tmpfs | null> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k`, 'tmpfs', dir]);
  } catch {
    await rm(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    async unmount() {
      await run('umount', ['-l', dir]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fill the file system of `dir` up to its last byte. */
export async function fill(dir: string): Promise<void> {
  await run('sh', [
    '-c',
    `dd if=/dev/zero of="${join(dir, 'ballast')}" bs=4k 2>/dev/null; dd if=/dev/zero of="${join(dir, 'ballast2')}" bs=1 2>/dev/null; true`,
  ]);
}
