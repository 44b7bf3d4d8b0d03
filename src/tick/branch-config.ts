// Which config a tick acts on (docs/overview.md, docs/status.md, docs/safety.md): the one committed on the
// branch. When a person left uncommitted edits to cluster.yaml or models.yaml
// in the checkout, those edits are only checked and planned, for the tick to
// report; everything the tick writes and commits (STATUS.md, state, events)
// and the invalid-config block come from the committed files, so a half-done
// edit never reaches the branch's STATUS.md nor fires config.invalid.

import { join } from 'node:path';
import { CONFIG_FILES } from '../store/files.js';
import { GENERATED_PATHS, diskPathProblems, treePathProblems } from '../store/paths.js';
import { loadConfig, parseConfig, withRepoProblems, type LoadOptions } from '../config/load-config.js';
import { MAX_CONFIG_BYTES } from '../config/limits.js';
import { readRegularFile } from '../util/regular-file.js';
import type { Checkout, TreeReader } from '../git/config-repo.js';
import { DataError } from '../errors.js';
import type { ConfigProblem, LoadResult } from '../types/config.js';

export interface BranchConfig {
  /** The committed config: what the tick gathers, plans, applies and renders from. */
  loaded: LoadResult;
  /** cluster.yaml's committed text (null when missing), for the invalid tick's webhooks. */
  clusterText: string | null;
  /** The working tree's config when it has uncommitted edits (checked and planned only); null when clean. */
  draft: LoadResult | null;
}

export async function branchConfig(repo: Pick<Checkout, 'dir'> & TreeReader, dirty: readonly string[], env: LoadOptions['env']): Promise<BranchConfig> {
  // repoDir: ssh.knownHosts and identityFile are checked to lie outside the repo, committed text or not.
  const opts: LoadOptions = { env, strictEnv: true, displayDir: '.', repoDir: repo.dir };
  const onDisk = await loadConfig(repo.dir, opts);
  // STATUS.md and .llmgw/ as committed: a link there is refused even where the checkout could not make one (core.symlinks=false).
  const inTree = await treePathProblems(
    await repo.modesAt(
      'HEAD',
      GENERATED_PATHS.map((p) => p.path),
    ),
  );
  if (dirty.length === 0) {
    // Never through a symlink (docs/security.md): the loader refused such a file, and so does this read.
    const read = await readRegularFile(join(repo.dir, 'cluster.yaml'), MAX_CONFIG_BYTES);
    const clusterText = read.ok ? read.text : null;
    return { loaded: withRepoProblems(onDisk, inTree), clusterText, draft: null };
  }
  const linked: ConfigProblem[] = [];
  const [cluster, models] = await Promise.all(
    CONFIG_FILES.map((f) =>
      repo.committedFile(f).catch((err: unknown) => {
        // A link committed in place of the file: its target is never read, and the config is invalid.
        if (!(err instanceof DataError)) throw err;
        linked.push({
          file: f,
          line: 1,
          col: 1,
          path: '',
          message: `${f} is a symbolic link in the commit: llmgw reads only regular files from the config repo, and read nothing through it`,
        });
        return null;
      }),
    ),
  );
  const loaded = parseConfig(
    // A file HEAD lacks reads as empty: its problem is then named at line 1 like any missing key.
    { cluster: { name: 'cluster.yaml', text: cluster ?? '' }, models: { name: 'models.yaml', text: models ?? '' } },
    opts,
  );
  return { loaded: withRepoProblems(loaded, [...linked, ...inTree, ...(await diskPathProblems(repo.dir))]), clusterText: cluster ?? null, draft: onDisk };
}
