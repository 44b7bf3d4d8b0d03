// Shared by the gather tests: a temp dir, an SshConfig pointing at a sim fleet,
// and canned replies.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SshConfig } from '../../src/types/config.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import type { ExecHandler, SimFleet } from '../../src/sim/fleet.js';

export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `llmgw-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function simSshConfig(fleet: SimFleet, over: Partial<SshConfig> = {}): SshConfig {
  return {
    user: fleet.user,
    identityFile: fleet.identityFile,
    knownHosts: fleet.knownHostsPath,
    port: 22,
    connectTimeoutMs: 2000,
    commandTimeoutMs: 2000,
    concurrency: 16,
    ...over,
  };
}

export function cannedReport(host: string): AgentReport {
  return {
    version: 1,
    gpus: [{ index: 0, uuid: `GPU-${host}`, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true }],
    replicas: [],
    storage: [],
    warnings: [],
  };
}

/** Answers `… agent report` with a canned report naming the host, `… router usage` with empty usage. */
export const cannedHandler: ExecHandler = async ({ host, command }) => {
  if (command.endsWith(' usage')) return { stdout: JSON.stringify({ version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {} }), code: 0 };
  return { stdout: JSON.stringify(cannedReport(host)), code: 0 };
};
