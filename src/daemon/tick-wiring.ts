// TEMPORARY SHIM — delete once the tick (F2: src/daemon/tick.ts,
// src/daemon/transport-for-config.ts, src/cli/tick-report.ts) and the SSH
// transport (B1: src/gather/ssh-transport.ts) are on main. Until then those
// modules are loaded by a computed path, so this branch builds without them;
// the replacement is three static imports in src/cli/commands/run.ts:
//   import { runTick } from '../../daemon/tick.js';
//   import { cachedTransports } from '../../daemon/transport-for-config.js';
//   import { createSshTransport } from '../../gather/ssh-transport.js';
// (and tickSummary from '../tick-report.js').

import { NotImplementedError } from '../errors.js';
import type { Config, SshConfig } from '../types/config.js';
import type { Transport } from '../types/transport.js';
import type { ConfigRepo } from '../git/config-repo.js';

export interface TickOptionsLike {
  repo: ConfigRepo;
  transport: Transport | ((config: Config) => Transport);
  env: Record<string, string | undefined>;
  now: () => Date;
  push: boolean;
  log: (line: string) => void;
}

export interface TickWiring {
  runTick(opts: TickOptionsLike): Promise<unknown>;
  cachedTransports(create: (ssh: SshConfig) => Transport): { forConfig(config: Config): Transport; close(): Promise<void> };
  createSshTransport(ssh: SshConfig, opts: { env?: Record<string, string | undefined>; keepAlive?: boolean }): Transport;
  tickSummary(result: unknown): string;
}

async function load(path: string, name: string): Promise<unknown> {
  const spec: string = new URL(path, import.meta.url).href;
  try {
    const mod = (await import(spec)) as Record<string, unknown>;
    if (typeof mod[name] !== 'function') throw new Error(`${name} missing`);
    return mod[name];
  } catch (err) {
    throw new NotImplementedError(`\`llmgw run\` needs ${name}, which is not merged yet`, { cause: err });
  }
}

export async function loadTickWiring(): Promise<TickWiring> {
  const [runTick, cachedTransports, createSshTransport, tickSummary] = await Promise.all([
    load('./tick.js', 'runTick'),
    load('./transport-for-config.js', 'cachedTransports'),
    load('../gather/ssh-transport.js', 'createSshTransport'),
    load('../cli/tick-report.js', 'tickSummary').catch(() => () => 'tick done'),
  ]);
  return { runTick, cachedTransports, createSshTransport, tickSummary } as TickWiring;
}
