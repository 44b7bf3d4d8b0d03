// The options that say which config repo a command works on, shared by the
// commands that tick (reconcile, run): a checkout (`--repo DIR`), or a remote
// cloned into and kept current in a work directory.

import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { ConfigRepo } from '../git/config-repo.js';
import type { Io } from './io.js';

export const REPO_OPTIONS = {
  repo: { type: 'string' },
  remote: { type: 'string' },
  branch: { type: 'string' },
  workdir: { type: 'string' },
} as const;

export const REPO_OPTIONS_HELP = `  --repo DIR            a checkout of the config repo (default .)
  --remote URL          clone URL into --workdir (or update it there) and work on that
  --branch B            the branch of --remote (default main)
  --workdir DIR         where the checkout of --remote lives
`;

export interface RepoOptionValues {
  repo?: string;
  remote?: string;
  branch?: string;
  workdir?: string;
}

/** Check the combination and open the repo (the git layer is loaded only now). `signals` bound git calls once the process is told to stop. */
export async function openRepoFromOptions(
  values: RepoOptionValues,
  io: Io,
  signals?: { stopping: AbortSignal; halted: AbortSignal; log?: (line: string) => void },
): Promise<ConfigRepo> {
  if (values.remote !== undefined && values.repo !== undefined) throw new UsageError('give --repo or --remote, not both');
  if (values.remote !== undefined && values.workdir === undefined) throw new UsageError('--remote needs --workdir DIR');
  if (values.remote === undefined && (values.workdir !== undefined || values.branch !== undefined)) {
    throw new UsageError('--workdir and --branch go with --remote');
  }
  const dir = resolve(io.cwd, values.workdir ?? values.repo ?? '.');
  const { openConfigRepo } = await import('../git/config-repo.js');
  return openConfigRepo({
    dir,
    remote: values.remote,
    branch: values.branch,
    env: io.env,
    stopping: signals?.stopping,
    halted: signals?.halted,
    log: signals?.log,
  });
}

/**
 * docs/commands.md: every command takes `--repo DIR`. The agent, the router and the
 * demo work on no config repo, so they accept it and leave it unused rather
 * than failing a wrapper that passes it to every command.
 */
export function withoutRepoOption(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--repo') i++;
    else if (!arg.startsWith('--repo=')) out.push(arg);
  }
  return out;
}
