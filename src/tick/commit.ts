// The commit phase (src/tick/README.md): write the generated files, commit them
// when STATUS.md or state.json changed, push. A tick whose lease ran out
// commits nothing: another instance may hold the fleet by now, and it will
// re-observe and commit. A failed push keeps the commit for the next tick.

import { GENERATED_FILES } from '../store/files.js';
import { GitError } from '../errors.js';
import type { Checkout } from '../git/config-repo.js';
import { writeGenerated, type Generated } from '../store/write.js';
import { decisionText } from '../plan/scale.js';
import { yieldedJobs } from '../plan/yield.js';
import { duration } from '../text/format.js';
import type { Planned } from './plan.js';

export interface Committed {
  /** The new commit, or null when nothing changed (or the lease ran out). */
  commit: string | null;
  pushed: boolean;
  /** Why the push failed (the commit is kept and pushed by a later tick); null otherwise. */
  pushError: string | null;
  /** The lease ran out during the tick: nothing was committed. */
  leaseLost: boolean;
}

export interface CommitOptions {
  push: boolean;
  leaseExpired: () => boolean;
  log: (line: string) => void;
}

export async function commitTick(repo: Checkout, files: Generated, message: string, opts: CommitOptions): Promise<Committed> {
  const out: Committed = { commit: null, pushed: false, pushError: null, leaseLost: false };
  const changed = await writeGenerated(repo, files);
  if (opts.leaseExpired()) {
    opts.log('the lease ran out during the tick: committing nothing (the next holder re-observes and commits)');
    return { ...out, leaseLost: true };
  }
  const commit = changed ? await repo.commit(GENERATED_FILES, message) : null;
  if (commit !== null) opts.log(`committed ${commit.slice(0, 12)}: ${message.split('\n')[0] ?? ''}`);
  if (!opts.push || !repo.hasRemote) return { ...out, commit };
  // Also an earlier tick's commit whose push failed or was skipped (--no-push).
  if (commit === null && !(await repo.unpushed())) return { ...out, commit };
  try {
    await repo.push();
    return { ...out, commit, pushed: true };
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    opts.log(`push failed: ${err.message}`);
    return { ...out, commit, pushError: err.message };
  }
}

/**
 * What the tick decided by itself, each with its cause, for the commit message
 * (docs/config.md#on-demand-models): `scale qwen-7b 0→1 (12 waiting at rt-a)`,
 * `evict phi-3-0 for qwen-7b (idle 3h)`. A person reading `git log` sees why
 * the fleet moved without a PR.
 */
export function decisionLines(planned: Pick<Planned, 'scaled' | 'plan' | 'fleet'>): string[] {
  const lines = planned.scaled.map(decisionText);
  for (const a of planned.plan.actions) {
    if (a.op !== 'stop') continue;
    const m = EVICTED.exec(a.reason);
    const jobs = m ? null : yieldedJobs(a.reason);
    if (!m && !jobs) continue;
    const idle = planned.fleet.replicaById.get(a.replica)?.idleSeconds;
    const cause = m ? `evict ${a.replica} for ${m[1] ?? ''}` : `yield ${a.replica} to Slurm ${jobs?.length === 1 ? 'job' : 'jobs'} ${(jobs ?? []).join(', ')}`;
    lines.push(`${cause}${idle === null || idle === undefined ? '' : ` (idle ${duration(idle)})`}`);
  }
  return lines;
}

const EVICTED = /^evicted for (.+)$/;
