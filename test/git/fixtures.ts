// Real repositories in a temp dir: a bare remote seeded with a config, and a
// plain `git` for the test's own moves (as another writer would make them).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Sandbox {
  root: string;
  /** A HOME with no git identity, like a fresh machine. */
  env: Record<string, string | undefined>;
  remote: string;
  /** Run git as "another writer" (with its own identity). */
  git(cwd: string, ...args: string[]): string;
  /** Clone the remote into root/<name> as another writer. */
  clone(name: string): string;
  write(dir: string, file: string, text: string): void;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'llmgw-git-'));
  const home = join(root, 'home');
  mkdirSync(home);
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const writerEnv = {
    ...env,
    GIT_AUTHOR_NAME: 'Person',
    GIT_AUTHOR_EMAIL: 'person@example.com',
    GIT_COMMITTER_NAME: 'Person',
    GIT_COMMITTER_EMAIL: 'person@example.com',
  };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: writerEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const remote = join(root, 'remote.git');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  const seed = join(root, 'seed');
  git(root, 'init', '--quiet', '--initial-branch=main', seed);
  writeFileSync(join(seed, 'cluster.yaml'), 'apiVersion: llmgw/v1\nkind: Cluster\nname: t\n');
  writeFileSync(join(seed, 'models.yaml'), 'apiVersion: llmgw/v1\nkind: Models\nmodels: []\n');
  git(seed, 'add', '.');
  git(seed, 'commit', '--quiet', '-m', 'seed');
  git(seed, 'push', '--quiet', remote, 'main');
  const write = (dir: string, file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  return {
    root,
    env,
    remote,
    git,
    clone(name) {
      const dir = join(root, name);
      git(root, 'clone', '--quiet', remote, dir);
      return dir;
    },
    write,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The lease tests' TTL, and their clock: `at(ms)` is `ms` after T0. */
export const TTL = 10 * 60_000;
export const T0 = new Date('2026-11-29T08:00:00Z');
export const at = (ms: number): Date => new Date(T0.getTime() + ms);
