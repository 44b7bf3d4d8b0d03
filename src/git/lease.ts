// Two reconcilers, one fleet (docs/safety.md): the lease lives in the remote itself,
// as the ref refs/llmgw/lease. Its commit (an empty tree) carries the holder and
// the expiry as JSON. It is taken or renewed by a push that only succeeds while
// the ref is still what this instance last read — a compare-and-swap on that one
// ref, so no other coordination service is needed and the branch is never forced.

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GitError } from '../errors.js';
import { STATE_FILE, stateOrFresh } from '../store/files.js';
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
  /** The fencing epoch the lease carries now (docs/safety.md#fencing). */
  epoch: number;
}

/**
 * The lease's record, the JSON message of the lease commit. Readers accept
 * any extra key, so an older instance still reads holder and expiry. `epoch`
 * grows by one at every change of holder; `at` is the writer's clock when it
 * wrote, so a reader can tell a writer whose clock runs ahead.
 */
interface LeaseBody {
  holder: string;
  expiresAt: string;
  epoch: number;
  at?: string;
}

/** How far in the future a time read from the repo may lie before it counts as now (docs/safety.md#clocks). */
export const FUTURE_SLACK_MS = 5 * 60_000;

/** The highest epoch this process has issued or seen, per repo: a ref deleted meanwhile never takes the epoch back. */
const highestSeen = new WeakMap<LeaseRefs, number>();

function noteEpoch(repo: LeaseRefs, epoch: number): void {
  if (epoch > (highestSeen.get(repo) ?? 0)) highestSeen.set(repo, epoch);
}

/** When this process first read a lease commit written in its future: that write counts as made then. */
const sightings = new Map<string, number>();

/**
 * When another holder's lease runs out, by this reader's clock. A writer whose
 * clock ran more than FUTURE_SLACK_MS ahead wrote an expiry that far ahead
 * too: its write counts as made when this reader first saw it, so the lease
 * lasts its TTL from then, not an hour longer.
 */
function expiryOf(sha: string, body: LeaseBody, now: Date, warn: (m: string) => void): number {
  const expires = Date.parse(body.expiresAt);
  const at = body.at === undefined ? Number.NaN : Date.parse(body.at);
  if (Number.isNaN(at) || at - now.getTime() <= FUTURE_SLACK_MS) return expires;
  let seen = sightings.get(sha);
  if (seen === undefined) {
    if (sightings.size > 64) sightings.clear();
    sightings.set(sha, (seen = now.getTime()));
  }
  warn(
    `the lease of ${body.holder} was written at ${body.at ?? ''}, in the future of this clock (${now.toISOString()}): counted as written at ${new Date(seen).toISOString()}`,
  );
  return seen + Math.max(0, expires - at);
}

export interface TakeOptions {
  holder: string;
  ttlMs: number;
  now: Date;
  /** The highest epoch issued as state.json records it: a lease ref created afresh starts above it. Default 0. */
  floorEpoch?: number;
  /** Told when a time read from the lease lies in the future of this clock. */
  warn?: (message: string) => void;
}

export async function takeLease(repo: LeaseRefs, opts: TakeOptions): Promise<LeaseResult> {
  const wanted = new Date(opts.now.getTime() + opts.ttlMs).toISOString();
  const floor = Math.max(opts.floorEpoch ?? 0, highestSeen.get(repo) ?? 0);
  // Without a remote there is nobody to share the fleet with: a single instance (its epoch is never refused by its own nodes).
  if (!repo.hasRemote) return { held: true, holder: opts.holder, expiresAt: wanted, epoch: Math.max(floor, 1) };

  const current = await readLease(repo);
  if (current?.body) noteEpoch(repo, current.body.epoch);
  const warn = opts.warn ?? (() => undefined);
  if (current && current.body && current.body.holder !== opts.holder && expiryOf(current.sha, current.body, opts.now, warn) > opts.now.getTime()) {
    return { held: false, holder: current.body.holder, expiresAt: current.body.expiresAt, epoch: current.body.epoch };
  }
  const mine = current?.body?.holder === opts.holder ? current.body : null;
  // A renewal never moves this holder's expiry backwards (a clock stepped back, a shorter TTL); only a release (ttl 0) does.
  const mineUntil = opts.ttlMs > 0 && mine !== null ? mine.expiresAt : null;
  const expiresAt = mineUntil !== null && Date.parse(mineUntil) > Date.parse(wanted) ? mineUntil : wanted;
  // A renewal keeps the epoch; a change of holder, or a ref created afresh, goes above every epoch known.
  const epoch = mine !== null ? mine.epoch : Math.max(current?.body?.epoch ?? 0, floor) + 1;
  const body: LeaseBody = { holder: opts.holder, expiresAt, epoch, at: opts.now.toISOString() };
  // An empty expected value means "the ref must not exist yet".
  const expect = current ? current.sha : '';
  const swapped = await repo.swapRemoteRef(LEASE_REF, JSON.stringify(body), expect);
  if (swapped.ok) {
    noteEpoch(repo, epoch);
    if (swapped.sha !== undefined) taken.set(repo, { holder: opts.holder, sha: swapped.sha, epoch });
    if (opts.ttlMs > 0) crashPoint('lease');
    return { held: true, holder: opts.holder, expiresAt, epoch };
  }
  const after = await readLease(repo);
  // The ref did not move, so no one beat us to it: the push failed for its own reason.
  if ((after?.sha ?? '') === expect) {
    throw new GitError(`taking the lease ${LEASE_REF} failed: ${swapped.detail}`);
  }
  if (after?.body) noteEpoch(repo, after.body.epoch);
  // Lost the race: the winner is whoever the ref names now.
  return { held: false, holder: after?.body?.holder ?? '', expiresAt: after?.body?.expiresAt ?? '', epoch: after?.body?.epoch ?? 0 };
}

/** The lease while a body runs under it. */
export interface HeldLease {
  readonly holder: string;
  /** When the lease runs out, as last taken or renewed; undefined without a remote (nobody to hand over to, no deadline). */
  expiresAt(): Date | undefined;
  /** The fencing epoch every changing request carries (docs/safety.md#fencing). */
  epoch(): number;
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
  /** The highest epoch issued; default: what the checkout's state.json records (when `repo` is a checkout). */
  floorEpoch?: () => Promise<number>;
  warn?: (message: string) => void;
}

/** The highest epoch a checkout's state.json records; 0 when there is none or it cannot be read. */
async function stateFloor(repo: LeaseRefs): Promise<number> {
  const dir = (repo as Partial<{ dir: string }>).dir;
  if (typeof dir !== 'string') return 0;
  const text = await readFile(join(dir, STATE_FILE), 'utf8').catch(() => null);
  return stateOrFresh(text, STATE_FILE, () => undefined).leaseEpoch ?? 0;
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
  const floorEpoch = await (opts.floorEpoch ?? (() => stateFloor(repo)))();
  const first = await takeLease(repo, { holder, ttlMs, now: opts.now(), floorEpoch, warn: opts.warn });
  if (!first.held) return { held: false, holder: first.holder, expiresAt: first.expiresAt };
  let until = first.expiresAt;
  let epoch = first.epoch;
  // Set and cleared from the timer: typed wide so the await below is not read as awaiting null.
  let renewing = null as Promise<void> | null;
  let timer: NodeJS.Timeout | undefined;
  if (opts.renewEveryMs !== undefined && repo.hasRemote) {
    timer = setInterval(() => {
      // A renewal that fails (or finds the lease taken) leaves the old expiry: the holder's deadline then stops it acting.
      renewing ??= takeLease(repo, { holder, ttlMs, now: opts.now(), floorEpoch: epoch, warn: opts.warn })
        .then((r) => {
          // Taken back after someone else held it: a new epoch, and nodes that saw the other holder's admit this one again.
          if (r.held && r.holder === holder) [until, epoch] = [r.expiresAt, r.epoch];
        })
        .catch(() => undefined)
        .finally(() => (renewing = null));
    }, opts.renewEveryMs);
    timer.unref();
  }
  try {
    const value = await body({ holder, expiresAt: () => (repo.hasRemote ? new Date(until) : undefined), epoch: () => epoch });
    return { held: true, value };
  } finally {
    clearInterval(timer);
    await renewing;
    // A lease that expires now is free for the next instance at once.
    if (opts.keep !== true) await releaseLease(repo, { holder, now: opts.now() }).catch(() => undefined);
  }
}

/** The lease commit this process last pushed, per repo: what releaseLease may delete. */
const taken = new WeakMap<LeaseRefs, { holder: string; sha: string; epoch: number }>();

/**
 * The lease this process holds on `repo` as a request carries it
 * (`{"epoch":N,"holder":"…"}`); undefined when it holds none. The tick reads
 * it here so every path that holds the lease (reconcile, run, apply) sends the same.
 */
export function heldFence(repo: LeaseRefs): { epoch: number; holder: string } | undefined {
  const mine = taken.get(repo);
  return mine === undefined ? undefined : { epoch: mine.epoch, holder: mine.holder };
}

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
      // A lease written before fencing is epoch 0.
      const epoch = typeof raw.epoch === 'number' && Number.isSafeInteger(raw.epoch) && raw.epoch > 0 ? raw.epoch : 0;
      return { holder: raw.holder, expiresAt: raw.expiresAt, epoch, ...(typeof raw.at === 'string' ? { at: raw.at } : {}) };
    }
  } catch {
    // fall through: unreadable
  }
  return null;
}

/**
 * Where a holder writes ahead the starts it is about to send
 * (docs/safety.md#write-ahead-intents): a ref of the remote beside the lease,
 * pushed before the first start request goes out, so a holder that dies
 * before its state.json is committed leaves llmgw's own record of what it
 * started where the next holder reads it. Letting the lease go leaves it in
 * place; the next tick that starts something replaces it.
 */
export const INTENTS_REF = 'refs/llmgw/intents';
const INTENTS_SEEN = 'refs/llmgw/intents-seen';

/** One start as written ahead: the replica id, its model, port, and each rank's node and GPUs. */
export interface IntentEntry {
  replica: string;
  model: string;
  port: number;
  placement: { node: string; gpus: number[] }[];
  /** When it was written (the writer's clock); absent: unknown (src/tick/state.ts adoptIntents). */
  at?: string;
}

/** The intents this process wrote or read, per repo: what the next tick adopts. */
const intents = new WeakMap<LeaseRefs, IntentEntry[]>();
/** The intents commit last read, per repo: an unchanged ref is not fetched again. */
const intentsSha = new WeakMap<LeaseRefs, string>();

function isIntent(x: unknown): x is IntentEntry {
  const e = x as Partial<IntentEntry> | null;
  return (
    e !== null &&
    typeof e === 'object' &&
    typeof e.replica === 'string' &&
    typeof e.model === 'string' &&
    typeof e.port === 'number' &&
    Number.isInteger(e.port) &&
    Array.isArray(e.placement) &&
    (e.placement as unknown[]).every((p) => {
      const rank = p as { node?: unknown; gpus?: unknown } | null;
      return (
        rank !== null && typeof rank === 'object' && typeof rank.node === 'string' && Array.isArray(rank.gpus) && rank.gpus.every((g) => Number.isInteger(g))
      );
    })
  );
}

function parseIntents(message: string): IntentEntry[] {
  try {
    const raw = JSON.parse(message) as { starts?: unknown; at?: unknown };
    const at = typeof raw.at === 'string' && !Number.isNaN(Date.parse(raw.at)) ? raw.at : undefined;
    return Array.isArray(raw.starts) ? raw.starts.filter(isIntent).map((e) => ({ ...e, ...(at === undefined ? {} : { at }) })) : [];
  } catch {
    return [];
  }
}

/**
 * The intents a previous holder wrote, with this process's own: read before
 * the tick trusts any report. One ls-remote; fetched only when the ref moved.
 * A remote that cannot be read leaves what this process knows.
 */
export async function readIntents(repo: LeaseRefs, warn: (m: string) => void = () => undefined): Promise<IntentEntry[]> {
  if (!repo.hasRemote) return intents.get(repo) ?? [];
  try {
    const sha = await repo.remoteRefSha(INTENTS_REF);
    if (sha === null || sha === intentsSha.get(repo)) return intents.get(repo) ?? [];
    const ref = await repo.readRemoteRef(INTENTS_REF, INTENTS_SEEN, 'the start intents');
    if (ref !== null) intentsSha.set(repo, ref.sha);
    const read = ref === null ? [] : parseIntents(ref.message);
    const mine = intents.get(repo) ?? [];
    const ids = new Set(read.map((i) => i.replica));
    const all = [...read, ...mine.filter((i) => !ids.has(i.replica))];
    intents.set(repo, all);
    return all;
  } catch (err) {
    warn(`reading ${INTENTS_REF} failed (${(err as Error).message}); replicas started by a holder that died before committing may show as unrecorded`);
    return intents.get(repo) ?? [];
  }
}

/** The intents this process knows for `repo` (written or read), for the tick to adopt. */
export function knownIntents(repo: LeaseRefs): IntentEntry[] {
  return intents.get(repo) ?? [];
}

/**
 * Write `starts` ahead, before any start request goes out: one ref update,
 * and none when nothing starts. Also kept in this process, so its own next
 * tick adopts them even when the remote could not be written (then a warning
 * says so: a crash now would leave those replicas unrecorded).
 */
export async function writeIntents(
  repo: LeaseRefs,
  starts: readonly IntentEntry[],
  opts: { holder: string; epoch: number; now: Date; warn: (m: string) => void },
): Promise<void> {
  if (starts.length === 0) return;
  const at = opts.now.toISOString();
  intents.set(
    repo,
    starts.map((e) => ({ ...e, at })),
  );
  if (!repo.hasRemote) return;
  const body = JSON.stringify({ holder: opts.holder, epoch: opts.epoch, at, starts: starts.map(({ at: _at, ...e }) => e) });
  try {
    const expected = (await repo.remoteRefSha(INTENTS_REF)) ?? '';
    const swapped = await repo.swapRemoteRef(INTENTS_REF, body, expected);
    if (!swapped.ok) opts.warn(`writing the start intents to ${INTENTS_REF} failed: ${swapped.detail}`);
    else {
      // Its own write: not fetched back.
      if (swapped.sha !== undefined) intentsSha.set(repo, swapped.sha);
      crashPoint('intents');
    }
  } catch (err) {
    opts.warn(`writing the start intents to ${INTENTS_REF} failed: ${(err as Error).message}`);
  }
}
