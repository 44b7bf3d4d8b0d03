// Two reconcilers, one fleet (docs/safety.md): the lease lives in the remote itself,
// as the ref refs/llmgw/lease. Its commit (an empty tree) carries the holder and
// the expiry as JSON. It is taken or renewed by a push that only succeeds while
// the ref is still what this instance last read — a compare-and-swap on that one
// ref, so no other coordination service is needed and the branch is never forced.

import { GitError } from '../errors.js';
import { repoInternals, type ConfigRepo } from './config-repo.js';
import type { GitRunner } from './runner.js';

export const LEASE_REF = 'refs/llmgw/lease';
/** Where the last lease read from the remote is kept locally. */
const SEEN_REF = 'refs/llmgw/lease-seen';

export interface LeaseResult {
  held: boolean;
  holder: string;
  expiresAt: string;
}

interface LeaseBody {
  holder: string;
  expiresAt: string;
}

export async function takeLease(
  repo: ConfigRepo,
  opts: { holder: string; ttlMs: number; now: Date },
): Promise<LeaseResult> {
  const expiresAt = new Date(opts.now.getTime() + opts.ttlMs).toISOString();
  const inner = repoInternals(repo);
  // Without a remote there is nobody to share the fleet with: a single instance.
  if (!inner) return { held: true, holder: opts.holder, expiresAt };
  const { git, upstream } = inner;

  const current = await readLease(git, upstream.remote);
  if (current && current.body && current.body.holder !== opts.holder && Date.parse(current.body.expiresAt) > opts.now.getTime()) {
    return { held: false, holder: current.body.holder, expiresAt: current.body.expiresAt };
  }
  const body: LeaseBody = { holder: opts.holder, expiresAt };
  const emptyTree = await git.run(['hash-object', '-t', 'tree', '-w', '/dev/null']);
  const commit = await git.run(['commit-tree', emptyTree, '-m', JSON.stringify(body)], 'writing the lease commit');
  // An empty expected value means "the ref must not exist yet".
  const expect = current ? current.sha : '';
  const pushed = await git.tryRun([
    'push',
    '--quiet',
    '--porcelain',
    `--force-with-lease=${LEASE_REF}:${expect}`,
    upstream.remote,
    `${commit}:${LEASE_REF}`,
  ]);
  if (pushed.ok) return { held: true, holder: opts.holder, expiresAt };
  const after = await readLease(git, upstream.remote);
  // The ref did not move, so no one beat us to it: the push failed for its own reason.
  if ((after?.sha ?? '') === expect) {
    throw new GitError(`taking the lease ${LEASE_REF} on ${upstream.remote} failed: ${pushed.detail}`);
  }
  // Lost the race: the winner is whoever the ref names now.
  return { held: false, holder: after?.body?.holder ?? '', expiresAt: after?.body?.expiresAt ?? '' };
}

/** The lease as the remote has it now; null when there is none. A body that cannot be read counts as expired. */
async function readLease(git: GitRunner, remote: string): Promise<{ sha: string; body: LeaseBody | null } | null> {
  const listed = await git.run(['ls-remote', remote, LEASE_REF], `reading the lease from ${remote}`);
  if (listed === '') return null;
  await git.run(['fetch', '--quiet', '--no-tags', remote, `+${LEASE_REF}:${SEEN_REF}`], `reading the lease from ${remote}`);
  const sha = await git.run(['rev-parse', '--verify', SEEN_REF]);
  const message = await git.run(['log', '-1', '--format=%B', sha]);
  return { sha, body: parseBody(message) };
}

function parseBody(message: string): LeaseBody | null {
  try {
    const raw = JSON.parse(message) as Partial<LeaseBody>;
    if (typeof raw.holder === 'string' && typeof raw.expiresAt === 'string' && !Number.isNaN(Date.parse(raw.expiresAt))) {
      return { holder: raw.holder, expiresAt: raw.expiresAt };
    }
  } catch {
    // fall through: unreadable
  }
  return null;
}
