// Two reconcilers, one fleet (docs/safety.md): the lease lives in the remote itself,
// as the ref refs/llmgw/lease. Its commit (an empty tree) carries the holder and
// the expiry as JSON. It is taken or renewed by a push that only succeeds while
// the ref is still what this instance last read — a compare-and-swap on that one
// ref, so no other coordination service is needed and the branch is never forced.

import { GitError } from '../errors.js';
import { crashPoint } from '../util/crash-point.js';
import type { ConfigRepo } from './config-repo.js';

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

export async function takeLease(repo: ConfigRepo, opts: { holder: string; ttlMs: number; now: Date }): Promise<LeaseResult> {
  const expiresAt = new Date(opts.now.getTime() + opts.ttlMs).toISOString();
  // Without a remote there is nobody to share the fleet with: a single instance.
  if (!repo.hasRemote) return { held: true, holder: opts.holder, expiresAt };

  const current = await readLease(repo);
  if (current && current.body && current.body.holder !== opts.holder && Date.parse(current.body.expiresAt) > opts.now.getTime()) {
    return { held: false, holder: current.body.holder, expiresAt: current.body.expiresAt };
  }
  const body: LeaseBody = { holder: opts.holder, expiresAt };
  // An empty expected value means "the ref must not exist yet".
  const expect = current ? current.sha : '';
  const swapped = await repo.swapRemoteRef(LEASE_REF, JSON.stringify(body), expect);
  if (swapped.ok) {
    if (swapped.sha !== undefined) taken.set(repo, { holder: opts.holder, sha: swapped.sha });
    if (opts.ttlMs > 0) crashPoint('lease');
    return { held: true, holder: opts.holder, expiresAt };
  }
  const after = await readLease(repo);
  // The ref did not move, so no one beat us to it: the push failed for its own reason.
  if ((after?.sha ?? '') === expect) {
    throw new GitError(`taking the lease ${LEASE_REF} failed: ${swapped.detail}`);
  }
  // Lost the race: the winner is whoever the ref names now.
  return { held: false, holder: after?.body?.holder ?? '', expiresAt: after?.body?.expiresAt ?? '' };
}

/** The lease commit this process last pushed, per repo: what releaseLease may delete. */
const taken = new WeakMap<ConfigRepo, { holder: string; sha: string }>();

/**
 * Let the lease go at once, so the next instance need not wait out its TTL:
 * the ref is deleted while it still points at the commit this process pushed
 * (someone who took it over since keeps it). Reading and deleting write
 * nothing locally, so a reconciler whose disk is full still lets go; when
 * this process never took the lease, it is written as expired instead.
 */
export async function releaseLease(repo: ConfigRepo, opts: { holder: string; now: Date }): Promise<void> {
  if (!repo.hasRemote) return;
  const mine = taken.get(repo);
  if (mine === undefined || mine.holder !== opts.holder) {
    await takeLease(repo, { holder: opts.holder, ttlMs: 0, now: opts.now });
    return;
  }
  if ((await repo.remoteRefSha(LEASE_REF)) !== mine.sha) return;
  const dropped = await repo.dropRemoteRef(LEASE_REF, mine.sha);
  if (dropped.ok) taken.delete(repo);
}

/** The lease as the remote has it now; null when there is none. A body that cannot be read counts as expired. */
async function readLease(repo: ConfigRepo): Promise<{ sha: string; body: LeaseBody | null } | null> {
  const ref = await repo.readRemoteRef(LEASE_REF, SEEN_REF, 'the lease');
  return ref === null ? null : { sha: ref.sha, body: parseBody(ref.message) };
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
