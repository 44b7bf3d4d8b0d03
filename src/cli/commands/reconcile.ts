// `llmgw reconcile`: one GitOps tick (CONTRACT §7). The tick itself is
// src/daemon/tick.ts, shared with `llmgw run` and `llmgw demo`.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { Io } from '../io.js';
import { runTick } from '../../daemon/tick.js';
import { cachedTransports } from '../../daemon/transport-for-config.js';
import { createSshTransport, openConfigRepo } from '../../daemon/shim-pending.js';
import { printTickResult } from '../tick-report.js';

const HELP = `Usage: llmgw reconcile [--repo DIR | --remote URL [--branch B] --workdir DIR] [--no-push]

One tick: pull, validate, gather, plan, apply unless blocked, render STATUS.md,
commit .llmgw/ and STATUS.md when they changed, push, notify.
  --repo DIR       a checkout of the config repo (default .)
  --remote URL     clone or update URL into --workdir and reconcile that
  --branch B       the branch of --remote (default main)
  --workdir DIR    where the checkout of --remote lives
  --no-push        commit locally, do not push
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      remote: { type: 'string' },
      branch: { type: 'string' },
      workdir: { type: 'string' },
      'no-push': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.remote !== undefined && values.repo !== undefined) throw new UsageError('give --repo or --remote, not both');
  if (values.remote !== undefined && values.workdir === undefined) throw new UsageError('--remote needs --workdir DIR');
  if (values.remote === undefined && (values.workdir !== undefined || values.branch !== undefined)) {
    throw new UsageError('--workdir and --branch go with --remote');
  }
  const dir = resolve(io.cwd, values.remote !== undefined ? values.workdir! : (values.repo ?? '.'));
  const repo = await openConfigRepo({ dir, remote: values.remote, branch: values.branch, env: io.env });
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env: io.env, keepAlive: false }));
  try {
    const result = await runTick({
      repo,
      transport: (config) => transports.forConfig(config),
      env: io.env,
      now: () => new Date(),
      push: !values['no-push'],
      log: (line) => io.stdout.write(line + '\n'),
    });
    printTickResult(result, io);
    const failed = result.configInvalid || result.pushError !== null || (result.outcome?.failed ?? 0) > 0;
    return failed ? 1 : 0;
  } finally {
    await transports.close();
  }
}
