// `llmgw reconcile`: one GitOps tick (docs/commands.md). The tick itself is
// src/tick/run.ts, shared with `llmgw run`, `llmgw demo`, `apply` and `plan`. With a remote,
// the tick runs only while holding the lease (docs/safety.md), so a manual
// reconcile never races a `llmgw run` instance; the lease is let go after.

import { parseArgs } from 'node:util';
import type { Io } from '../io.js';
import { leasedTick } from '../../tick/run.js';
import { cachedTransports } from '../../tick/transport-source.js';
import { createSshTransport } from '../../gather/ssh-transport.js';
import { createLogger, parseLogFormat } from '../../log/logger.js';
import { REPO_OPTIONS, REPO_OPTIONS_HELP, openRepoFromOptions } from '../repo-options.js';
import { stopSignals } from '../stop-signals.js';
import { printTickResult } from '../../tick/report.js';

const HELP = `Usage: llmgw reconcile [--repo DIR | --remote URL [--branch B] --workdir DIR] [--no-push]
                       [--log-format text|json]

One tick: pull, validate, gather, plan, apply unless blocked, render STATUS.md,
commit STATUS.md and .llmgw/ when STATUS.md or state changed, push, notify.
${REPO_OPTIONS_HELP}  --no-push             commit locally, do not push
  --log-format F        text (default) or json: one object a line with time, level, msg
                        and tick, the id the lines of this tick share (docs/operations.md)
With a remote, the tick waits for nobody: if another instance holds the lease
(refs/llmgw/lease), it says so and does nothing. Every git call is ended past
cluster.yaml's git.timeout (LLMGW_GIT_TIMEOUT=90s overrides it); SIGTERM finishes
the tick with each git call cut to a few seconds (docs/operations.md#crash-only).
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...REPO_OPTIONS,
      'no-push': { type: 'boolean', default: false },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const logger = createLogger({ format: parseLogFormat(values['log-format']), stdout: io.stdout, stderr: io.stderr, timestamps: false });
  const signals = stopSignals(logger.line);
  void signals.first.then((s) => logger.line(`${s}: finishing this tick, every git call cut to a few seconds`));
  const repo = await openRepoFromOptions(values, io, { ...signals, log: logger.line }).catch((err: unknown) => {
    signals.dispose();
    throw err;
  });
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env: io.env, keepAlive: false }));
  // The whole command is one tick: every line it logs carries the same tick id.
  return logger.inTick(async () => {
    try {
      const tick = await leasedTick({
        repo,
        transport: (config) => transports.forConfig(config),
        env: io.env,
        now: () => new Date(),
        push: !values['no-push'],
        log: logger.line,
      });
      if (!tick.held) {
        logger.line(`standing by: the lease is held by ${tick.holder || 'another instance'} until ${tick.expiresAt || 'unknown'}; nothing done`);
        return 0;
      }
      const { result } = tick;
      printTickResult(result, { ...io, stdout: logger.stdout, stderr: logger.stderr });
      const failed = result.configInvalid || result.leaseLost || result.pushError !== null || (result.outcome?.failed ?? 0) > 0;
      return failed ? 1 : 0;
    } finally {
      await transports.close();
      signals.dispose();
    }
  });
}
