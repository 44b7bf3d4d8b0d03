// ssh.knownHosts and ssh.identityFile must name files outside the config repo
// (docs/security.md): a PR that could point knownHosts at a file of its own
// would choose which host keys are trusted, and an identityFile inside the
// repo would be a key anyone with the repo has. Paths are compared lexically
// (`..` resolved) and, where the file or its directory exists, by their real
// path too, so a symlink out of $HOME into the repo does not slip through.

import { dirname, isAbsolute, relative, resolve } from 'node:path';

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
  const repo = resolve(repoDir);
  return within(abs, repo) || within(realish(abs, realpath), realish(repo, realpath));
}
