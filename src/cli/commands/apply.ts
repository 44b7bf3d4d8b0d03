// `llmgw apply`: the hand-driven tick (docs/commands.md), a driver of the same
// phases as a reconcile tick (src/tick): observe, plan, show the plan,
// confirm, apply, project, write STATUS.md and state. No commit: it is for an
// operator at a terminal, who commits (or lets the next reconcile commit).

import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { STATUS_FILE } from '../../config/repo-files.js';
import { ConfigError, GitError, UsageError } from '../../errors.js';
import { openConfigRepo, type ConfigRepo } from '../../git/config-repo.js';
import { releaseLease, takeLease } from '../../git/lease.js';
import { readGeneratedOrNull } from '../../config/generated-paths.js';
import { resolveRepoDir } from '../fleet-inputs.js';
import { escapeTerminal } from '../../text/terminal-text.js';
import type { Io } from '../io.js';
import { loadConfig } from '../../config/load-config.js';
import { strictExceptNotify } from '../../config/env-vars.js';
import { renderPlanText } from '../../views/plan/render-text.js';
import { previousRun } from '../../gather/observe.js';
import { createSshTransport } from '../../gather/ssh-transport.js';
import { afterTick, stateAfter } from '../../tick/after.js';
import { applyTick } from '../../tick/apply.js';
import { writeAll } from '../../tick/generated-files.js';
import { observe } from '../../tick/observe.js';
import { planTick } from '../../tick/plan.js';
import { previewTick } from '../../tick/preview.js';

/** How long a hand-driven apply holds the lease at most; it lets go as soon as it is done. */
const LEASE_TTL_MS = 10 * 60_000;

const HELP = `Usage: llmgw apply [--repo DIR] [--yes] [--force]

Gather, plan, show the plan, confirm, apply it, and write STATUS.md and
.llmgw/ (no commit). Refuses a checkout whose cluster.yaml or models.yaml has
uncommitted edits: only committed config is applied. With a remote, applies
only when no other instance (llmgw run, reconcile) holds its lease.
  --yes     apply without asking (required when stdin is not a terminal)
  --force   apply a plan the safety rules block (docs/safety.md)
`;

/** The checkout as a git repo; null when the directory is not a git checkout (then nothing is known to be uncommitted). */
async function checkout(dir: string, env: Record<string, string | undefined>): Promise<ConfigRepo | null> {
  return openConfigRepo({ dir, env }).catch((err: unknown) => {
    if (err instanceof GitError) return null;
    throw err;
  });
}

async function confirm(io: Io, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
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
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const dir = await resolveRepoDir(io, values.repo);
  const loaded = await loadConfig(dir, { env: io.env, strictEnv: strictExceptNotify, displayDir: values.repo });
  if (!loaded.ok) throw new ConfigError('the config is invalid: nothing applied', loaded.errors);
  const config = loaded.config;
  const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  if (!interactive && !values.yes) throw new UsageError('stdin is not a terminal: pass --yes to apply without confirmation');

  const warn = (m: string): void => void io.stderr.write(`warning: ${m}\n`);
  const { previous, state: committed } = await previousRun(dir, warn);
  const transport = createSshTransport(config.cluster.ssh, { env: io.env, keepAlive: true, onWarning: warn });
  try {
    const planned = planTick(await observe(config, { transport, previous, state: committed, at: new Date() }));
    const plan = planned.plan;
    const current = await readGeneratedOrNull(dir, STATUS_FILE);
    const preview = previewTick(planned, { before: current === null ? null : { text: current, label: STATUS_FILE }, base: null, force: values.force });
    io.stdout.write(renderPlanText(preview.plan, preview.diff, { color: Boolean(io.stdout.isTTY) && !io.env.NO_COLOR }));
    const repo = await checkout(dir, io.env);
    const dirty = repo ? await repo.dirtyConfig() : [];
    if (dirty.length > 0) {
      io.stderr.write(`llmgw apply: uncommitted edits to ${dirty.join(', ')}: only committed config is applied; commit them first\n`);
      return 1;
    }
    if (plan.blocked !== null && !values.force) {
      io.stderr.write(`llmgw apply: the plan is blocked: ${plan.blocked} (--force applies it anyway)\n`);
      return 1;
    }
    if (plan.actions.length > 0 && interactive && !values.yes && !(await confirm(io, `Apply ${plan.actions.length} change(s)? [y/N] `))) {
      io.stdout.write('Nothing applied.\n');
      return 1;
    }
    // Only the lease holder acts on the fleet (docs/safety.md): a `llmgw run` on the same remote is not raced.
    const lease = repo ? await takeLease(repo, { holder: `apply@${hostname()}:${process.pid}`, ttlMs: LEASE_TTL_MS, now: new Date() }) : null;
    if (lease && !lease.held) {
      io.stderr.write(`llmgw apply: the lease is held by ${lease.holder || 'another instance'} until ${lease.expiresAt || 'unknown'}: nothing applied\n`);
      return 1;
    }
    const { outcome, effects } = await applyTick(planned, transport).finally(async () => {
      // Let go at once: the next reconciler need not wait for it to run out.
      if (repo && lease) await releaseLease(repo, { holder: lease.holder, now: new Date() }).catch(() => undefined);
    });
    for (const r of outcome.results) {
      const why =
        r.status === 'failed' ? `: ${r.error ?? ''}` : r.status === 'deferred' ? ` (${r.reason ?? `waits for ${(r.waitingFor ?? []).join(', ')}`})` : '';
      // The replica id and the error are a node's text: escaped for the terminal (docs/security.md).
      io.stdout.write(escapeTerminal(`${r.phase ?? r.op} ${r.replica}: ${r.status}${why}`) + '\n');
    }
    for (const f of outcome.failures.filter((x) => x.op === 'endpoints'))
      io.stderr.write(escapeTerminal(`router ${f.host}: table not updated: ${f.error}`) + '\n');
    const state = stateAfter(planned, { outcome, effects });
    const after = afterTick(planned, effects, state);
    await writeAll(dir, { status: after.status, state: after.state, snapshot: after.snapshot });
    const draining = outcome.drained ? `, draining ${outcome.drained}` : '';
    io.stdout.write(
      `started ${outcome.started}, stopped ${outcome.stopped}${draining}, waiting ${outcome.deferred}, failed ${outcome.failed}; wrote ${STATUS_FILE}\n`,
    );
    return outcome.failed > 0 || outcome.failures.length > 0 ? 1 : 0;
  } finally {
    await transport.close();
  }
}
