// `llmgw reconcile`: one GitOps tick (docs/commands.md). The tick itself is
// src/daemon/tick.ts, shared with `llmgw run` and `llmgw demo`. With a remote,
// the tick runs only while holding the lease (docs/safety.md), so a manual
// reconcile never races a `llmgw run` instance; the lease is let go after.

import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { Io } from '../io.js';
import { leasedTick } from '../../daemon/leased-tick.js';
import { cachedTransports } from '../../daemon/transport-for-config.js';
import { createSshTransport } from '../../gather/ssh-transport.js';
import { REPO_OPTIONS, REPO_OPTIONS_HELP, openRepoFromOptions } from '../repo-options.js';
import { printTickResult } from '../tick-report.js';

const HELP = `Usage: llmgw reconcile [--repo DIR | --remote URL [--branch B] --workdir DIR] [--no-push]

One tick: pull, validate, gather, plan, apply unless blocked, render STATUS.md,
commit STATUS.md and .llmgw/ when STATUS.md or state changed, push, notify.
${REPO_OPTIONS_HELP}  --no-push             commit locally, do not push
With a remote, the tick waits for nobody: if another instance holds the lease
(refs/llmgw/lease), it says so and does nothing.
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...REPO_OPTIONS, 'no-push': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const repo = await openRepoFromOptions(values, io);
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env: io.env, keepAlive: false }));
  try {
    const tick = await leasedTick({
      repo,
      holder: `reconcile@${hostname()}:${process.pid}`,
      transport: (config) => transports.forConfig(config),
      env: io.env,
      now: () => new Date(),
      push: !values['no-push'],
      log: (line) => io.stdout.write(line + '\n'),
    });
    if (!tick.held) {
      io.stdout.write(`standing by: the lease is held by ${tick.holder || 'another instance'} until ${tick.expiresAt || 'unknown'}; nothing done\n`);
      return 0;
    }
    const { result } = tick;
    printTickResult(result, io);
    const failed = result.configInvalid || result.leaseLost || result.pushError !== null || (result.outcome?.failed ?? 0) > 0;
    return failed ? 1 : 0;
  } finally {
    await transports.close();
  }
}
