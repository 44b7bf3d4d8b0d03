// Two reconcilers, one fleet (docs/safety.md): the lease lives in the remote itself,
// as the ref refs/llmgw/lease. Its commit (an empty tree) carries the holder and
// the expiry as JSON. It is taken or renewed by a push that only succeeds while
// the ref is still what this instance last read — a compare-and-swap on that one
// ref, so no other coordination service is needed and the branch is never forced.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { GitError } from '../errors.js';
import { crashPoint } from '../util/crash-point.js';
import type { LeaseRefs } from './config-repo.js';

export const LEASE_REF = 'refs/llmgw/lease';
/** Where the last lease read from the remote is kept locally. */
const SEEN_REF = 'refs/llmgw/lease-seen';

/**
 * How long a lease lasts unless `llmgw run --lease-ttl` says otherwise: longer
 * than any sane tick, and let go as soon as the command is done. The one TTL.
 */
export const LEASE_TTL_MS = 10 * 60_000;

/** This process's holder id, made once: host name and pid alone repeat across containers, the nonce does not. */
const PROCESS_HOLDER = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** Who this process is in the lease (`host:pid:nonce`): unique per process, the same for every lease it takes. */
export function processHolder(): string {
  return PROCESS_HOLDER;
}

export interface LeaseResult {
  held: boolean;
  holder: string;
  expiresAt: string;
}

/**
 * The lease's record, the JSON message of the lease commit. Readers accept
 * any extra key, so a field added here (the fencing epoch of a later step
 * goes here, and is bumped in takeLease) stays readable by older instances.
 */
interface LeaseBody {
  holder: string;
  expiresAt: string;
}

export async function takeLease(repo: LeaseRefs, opts: { holder: string; ttlMs: number; now: Date }): Promise<LeaseResult> {
  const wanted = new Date(opts.now.getTime() + opts.ttlMs).toISOString();
  // Without a remote there is nobody to share the fleet with: a single instance.
  if (!repo.hasRemote) return { held: true, holder: opts.holder, expiresAt: wanted };

  const current = await readLease(repo);
  if (current && current.body && current.body.holder !== opts.holder && Date.parse(current.body.expiresAt) > opts.now.getTime()) {
    return { held: false, holder: current.body.holder, expiresAt: current.body.expiresAt };
  }
  // A renewal never moves this holder's expiry backwards (a clock stepped back, a shorter TTL); only a release (ttl 0) does.
  const mineUntil = opts.ttlMs > 0 && current?.body?.holder === opts.holder ? current.body.expiresAt : null;
  const expiresAt = mineUntil !== null && Date.parse(mineUntil) > Date.parse(wanted) ? mineUntil : wanted;
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

/** The lease while a body runs under it. */
export interface HeldLease {
  readonly holder: string;
  /** When the lease runs out, as last taken or renewed; undefined without a remote (nobody to hand over to, no deadline). */
  expiresAt(): Date | undefined;
  // The fencing epoch of a later step (#19) is handed to the body here, next to the expiry.
}

export type Leased<T> = { held: true; value: T } | { held: false; holder: string; expiresAt: string };

export interface WithLeaseOptions {
  /** Default: this process (processHolder()). */
  holder?: string;
  /** Default LEASE_TTL_MS. */
  ttlMs?: number;
  now: () => Date;
  /** Renew this often while the body runs (`llmgw apply` waiting for a person); default: never, the body is one tick. */
  renewEveryMs?: number;
  /** Keep the lease when the body ends (`llmgw run`, across its ticks); default: let it go at once. */
  keep?: boolean;
}

/**
 * The one way a command acts under the lease (docs/safety.md): take it, run
 * `body` while holding it, then let it go (unless `keep`). Another holder's
 * live lease means the body never runs and the caller is told who holds it.
 * A failure in the body reaches the caller after the lease is let go.
 */
export async function withLease<T>(repo: LeaseRefs, opts: WithLeaseOptions, body: (lease: HeldLease) => Promise<T>): Promise<Leased<T>> {
  const holder = opts.holder ?? processHolder();
  const ttlMs = opts.ttlMs ?? LEASE_TTL_MS;
  const first = await takeLease(repo, { holder, ttlMs, now: opts.now() });
  if (!first.held) return { held: false, holder: first.holder, expiresAt: first.expiresAt };
  let until = first.expiresAt;
  // Set and cleared from the timer: typed wide so the await below is not read as awaiting null.
  let renewing = null as Promise<void> | null;
  let timer: NodeJS.Timeout | undefined;
  if (opts.renewEveryMs !== undefined && repo.hasRemote) {
    timer = setInterval(() => {
      // A renewal that fails (or finds the lease taken) leaves the old expiry: the holder's deadline then stops it acting.
      renewing ??= takeLease(repo, { holder, ttlMs, now: opts.now() })
        .then((r) => {
          if (r.held && r.holder === holder) until = r.expiresAt;
        })
        .catch(() => undefined)
        .finally(() => (renewing = null));
    }, opts.renewEveryMs);
    timer.unref();
  }
  try {
    const value = await body({ holder, expiresAt: () => (repo.hasRemote ? new Date(until) : undefined) });
    return { held: true, value };
  } finally {
    clearInterval(timer);
    await renewing;
    // A lease that expires now is free for the next instance at once.
    if (opts.keep !== true) await releaseLease(repo, { holder, now: opts.now() }).catch(() => undefined);
  }
}

/** The lease commit this process last pushed, per repo: what releaseLease may delete. */
const taken = new WeakMap<LeaseRefs, { holder: string; sha: string }>();

/**
 * Let the lease go at once, so the next instance need not wait out its TTL:
 * the ref is deleted while it still points at the commit this process pushed
 * (someone who took it over since keeps it). Reading and deleting write
 * nothing locally, so a reconciler whose disk is full still lets go; when
 * this process never took the lease, it is written as expired instead.
 */
export async function releaseLease(repo: LeaseRefs, opts: { holder: string; now: Date }): Promise<void> {
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
async function readLease(repo: LeaseRefs): Promise<{ sha: string; body: LeaseBody | null } | null> {
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
