// Where the config branch stands, read without changing the checkout: the
// remote's tip by `git ls-remote` (what `llmgw run --poll` compares,
// docs/operations.md#which-trigger-sees-what) and the remote-tracking ref a tick's
// fetch or push leaves behind (what this process last saw of the remote). A
// commit llmgw pushed itself is in the tracking ref once its push is done, so
// it never reads as the branch having moved.

import { createGitRunner, type GitLimits } from './runner.js';

export interface BranchTips {
  /** `<remote> <branch>`, for log lines. */
  readonly where: string;
  /** The branch's commit in the remote now; null when the remote has no such branch. */
  remote(): Promise<string | null>;
  /** The remote-tracking ref's commit in the checkout; null before the first fetch. */
  tracked(): Promise<string | null>;
}

/** The tips of the branch `dir`'s HEAD tracks; null when it tracks none (no remote: nothing to poll). */
export async function branchTips(dir: string, env: Record<string, string | undefined>, limits: GitLimits): Promise<BranchTips | null> {
  const git = createGitRunner(dir, env, limits);
  const head = await git.tryRun(['rev-parse', '--abbrev-ref', 'HEAD']);
  if (!head.ok) return null;
  const remote = await git.tryRun(['config', '--get', `branch.${head.out}.remote`]);
  const merge = await git.tryRun(['config', '--get', `branch.${head.out}.merge`]);
  if (!remote.ok || !merge.ok || remote.out === '.' || !merge.out.startsWith('refs/heads/')) return null;
  const branch = merge.out.slice('refs/heads/'.length);
  const tracking = `refs/remotes/${remote.out}/${branch}`;
  return {
    where: `${remote.out} ${branch}`,
    async remote() {
      const listed = await git.run(['ls-remote', '--end-of-options', remote.out, `refs/heads/${branch}`], `reading ${branch} from ${remote.out}`);
      // `<sha>\trefs/heads/<branch>`: exactly that ref (ls-remote matches patterns by their tail).
      const line = listed.split('\n').find((l) => l.endsWith(`\trefs/heads/${branch}`));
      return line === undefined ? null : (line.split('\t', 1)[0] ?? null);
    },
    async tracked() {
      const sha = await git.tryRun(['rev-parse', '--verify', '--quiet', tracking]);
      return sha.ok && sha.out !== '' ? sha.out : null;
    },
  };
}
