// `llmgw apply`: the hand-driven tick (docs/commands.md), the tick in its
// by-hand mode (src/tick/run.ts): under the lease, observe, plan, show the
// plan, confirm, apply, project, write STATUS.md and state. No commit: it is
// for an operator at a terminal, who commits (or lets the next reconcile commit).

import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { STATUS_FILE } from '../../store/files.js';
import { ConfigError, GitError, UsageError } from '../../errors.js';
import { openConfigRepo, type ConfigRepo } from '../../git/config-repo.js';
import { parseDuration } from '../../config/duration.js';
import { resolveRepoDir } from '../fleet-inputs.js';
import { escapeTerminal } from '../../text/terminal-text.js';
import type { Io } from '../io.js';
import { loadConfig } from '../../config/load-config.js';
import { strictExceptNotify } from '../../config/env-vars.js';
import { renderPlanText } from '../../views/plan/render-text.js';
import { createSshTransport } from '../../gather/ssh-transport.js';
import { runTick, type Confirmation } from '../../tick/run.js';

const DEFAULT_CONFIRM_TIMEOUT = '10m';

const HELP = `Usage: llmgw apply [--repo DIR] [--yes] [--force] [--confirm-timeout DURATION]

Gather, plan, show the plan, confirm, apply it, and write STATUS.md and
.llmgw/ (no commit). Refuses a checkout whose cluster.yaml or models.yaml has
uncommitted edits: only committed config is applied. With a remote, it takes
the lease before it gathers and holds it until it has written (docs/safety.md):
it acts only when no other instance (llmgw run, reconcile) holds it, and none
acts while it waits at its prompt.
  --yes                      apply without asking (required when stdin is not a terminal)
  --force                    apply a plan the safety rules block (docs/safety.md)
  --confirm-timeout DURATION how long the prompt waits (default ${DEFAULT_CONFIRM_TIMEOUT}); then the
                             lease is let go and nothing is applied
`;

/** The checkout as a git repo; null when the directory is not a git checkout (then nothing is known to be uncommitted). */
async function checkout(dir: string, env: Record<string, string | undefined>): Promise<ConfigRepo | null> {
  return openConfigRepo({ dir, env }).catch((err: unknown) => {
    if (err instanceof GitError) return null;
    throw err;
  });
}

/** A person's answer, or 'timeout' once `timeoutMs` passed without one: the lease is not held for someone who walked away. */
async function confirm(io: Io, question: string, timeoutMs: number): Promise<Confirmation> {
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  const timer = new AbortController();
  const t = setTimeout(() => timer.abort(), timeoutMs);
  try {
    const answer = await rl.question(question, { signal: timer.signal }).catch((err: unknown) => {
      if (timer.signal.aborted) return null;
      throw err;
    });
    if (answer === null) return 'timeout';
    return /^y(es)?$/i.test(answer.trim()) ? 'yes' : 'no';
  } finally {
    clearTimeout(t);
    rl.close();
  }
}

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string', default: '.' },
      yes: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'confirm-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const timeoutText = values['confirm-timeout'] ?? DEFAULT_CONFIRM_TIMEOUT;
  const confirmTimeoutMs = parseDuration(timeoutText);
  if (confirmTimeoutMs === null || confirmTimeoutMs <= 0) {
    throw new UsageError(`--confirm-timeout '${timeoutText}' is not a duration (e.g. 90s, 10m, 1h30m)`);
  }
  const dir = await resolveRepoDir(io, values.repo);
  const loaded = await loadConfig(dir, { env: io.env, strictEnv: strictExceptNotify, displayDir: values.repo });
  if (!loaded.ok) throw new ConfigError('the config is invalid: nothing applied', loaded.errors);
  const config = loaded.config;
  const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  if (!interactive && !values.yes) throw new UsageError('stdin is not a terminal: pass --yes to apply without confirmation');

  const warn = (m: string): void => void io.stderr.write(`warning: ${m}\n`);
  const repo = await checkout(dir, io.env);
  const transport = createSshTransport(config.cluster.ssh, { env: io.env, keepAlive: true, onWarning: warn });
  try {
    const run = await runTick({
      kind: 'by-hand',
      dir,
      config,
      transport,
      repo,
      force: values.force,
      now: () => new Date(),
      warn,
      show: (preview) => void io.stdout.write(renderPlanText(preview.plan, preview.diff, { color: Boolean(io.stdout.isTTY) && !io.env.NO_COLOR })),
      applied: (outcome) => {
        for (const r of outcome.results) {
          const why =
            r.status === 'failed' ? `: ${r.error ?? ''}` : r.status === 'deferred' ? ` (${r.reason ?? `waits for ${(r.waitingFor ?? []).join(', ')}`})` : '';
          // The replica id and the error are a node's text: escaped for the terminal (docs/security.md).
          io.stdout.write(escapeTerminal(`${r.phase ?? r.op} ${r.replica}: ${r.status}${why}`) + '\n');
        }
        for (const f of outcome.failures.filter((x) => x.op === 'endpoints'))
          io.stderr.write(escapeTerminal(`router ${f.host}: table not updated: ${f.error}`) + '\n');
      },
      confirm: async (plan) => (interactive && !values.yes ? confirm(io, `Apply ${plan.actions.length} change(s)? [y/N] `, confirmTimeoutMs) : 'yes'),
    });
    const v = run.verdict;
    if (v.kind === 'held') {
      if (v.reason === 'lease-elsewhere') {
        const l = run.lease;
        io.stderr.write(`llmgw apply: the lease is held by ${l?.holder || 'another instance'} until ${l?.expiresAt || 'unknown'}: nothing applied\n`);
      } else if (v.reason === 'uncommitted-edits') {
        io.stderr.write(`llmgw apply: ${v.detail}: only committed config is applied; commit them first\n`);
      } else if (v.reason === 'blocked') {
        io.stderr.write(`llmgw apply: the plan is blocked: ${v.detail} (--force applies it anyway)\n`);
      } else if (v.reason === 'declined') {
        io.stdout.write('Nothing applied.\n');
      } else if (v.reason === 'confirm-timeout') {
        io.stdout.write(`No answer within ${timeoutText}: let the lease go. Nothing applied.\n`);
      } else {
        io.stderr.write(`llmgw apply: ${v.detail}\n`);
      }
      return 1;
    }
    if (v.kind !== 'applied') return 1;
    const outcome = v.outcome;
    const draining = outcome.drained ? `, draining ${outcome.drained}` : '';
    io.stdout.write(
      `started ${outcome.started}, stopped ${outcome.stopped}${draining}, waiting ${outcome.deferred}, failed ${outcome.failed}; wrote ${STATUS_FILE}\n`,
    );
    return outcome.failed > 0 || outcome.failures.length > 0 ? 1 : 0;
  } finally {
    await transport.close();
  }
}
