// ssh.knownHosts and ssh.identityFile must name files outside the config repo
// (docs/security.md): a PR that could point knownHosts at a file of its own
// would choose which host keys are trusted, and an identityFile inside the
// repo would be a key anyone with the repo has. Paths are compared lexically
// (`..` resolved) and, where the file or its directory exists, by their real
// path too, so a symlink out of $HOME into the repo does not slip through.
// The copies llmgw keeps of its own workdir (a broken checkout kept beside a
// fresh clone, a clone under way: src/git/workdir.ts) hold the repo's files
// too, so they count as the repo.

import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';

/** `DIR` + this: the old checkout kept when the workdir is cloned afresh. */
export const BROKEN_COPY_SUFFIX = '.llmgw-broken';
/** `DIR` + this + pid: a clone under way, renamed into place when done. */
export const CLONE_COPY_INFIX = '.llmgw-clone-';

/** The real path of `path`, or of its deepest existing ancestor joined with the rest. */
function realish(path: string, realpath: (p: string) => string): string {
  let dir = path;
  let rest = '';
  for (;;) {
    try {
      return resolve(realpath(dir), rest);
    } catch {
      const up = dirname(dir);
      if (up === dir) return path;
      rest = rest ? `${dir.slice(up.length + 1)}/${rest}` : dir.slice(up.length + 1);
      dir = up;
    }
  }
}

function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  // `..foo` is a name inside dir; only `..` itself or `../…` leaves it.
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

/** Whether the absolute `path` is inside `repoDir` (or is it), lexically or once links are followed. */
export function insideRepo(path: string, repoDir: string, realpath: (p: string) => string): boolean {
  const abs = resolve(path);
  const real = realish(abs, realpath);
  return [resolve(repoDir), realish(resolve(repoDir), realpath)].some((repo) => [abs, real].some((p) => within(p, repo) || withinCopy(p, repo)));
}

/** Whether `path` is inside one of the copies llmgw keeps of the checkout at `repo`. */
function withinCopy(path: string, repo: string): boolean {
  if (within(path, repo + BROKEN_COPY_SUFFIX)) return true;
  const rel = relative(dirname(repo), path);
  const top = rel.split('/')[0] ?? '';
  return !rel.startsWith('../') && !isAbsolute(rel) && top.startsWith(basename(repo) + CLONE_COPY_INFIX);
}
