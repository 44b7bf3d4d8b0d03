// A bare git remote on disk, and a second writer pushing to it: what a config
// repo on a git server and a merged PR look like, without a server.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createGitRunner } from '../git/runner.js';

/** The people side: their commits are not llmgw's. */
const IDENTITY = ['-c', 'user.name=llmgw demo', '-c', 'user.email=demo@llmgw.invalid', '-c', 'commit.gpgsign=false'];

/** `git <args>` in cwd, as a person would run it; trimmed stdout. */
export async function git(cwd: string, args: string[]): Promise<string> {
  return createGitRunner(cwd, process.env).run([...IDENTITY, ...args]);
}

/** Commit `files` (repo-relative path -> text) in the checkout `dir` and push its branch. */
export async function commitFiles(dir: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await git(dir, ['add', '--', ...Object.keys(files)]);
  await git(dir, ['commit', '--quiet', '-m', message]);
  await git(dir, ['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
  return git(dir, ['rev-parse', 'HEAD']);
}

/** A bare repo at `<dir>/remote.git` with one commit of `files` on main; returns its path (a usable URL). */
export async function createSeededRemote(dir: string, files: Record<string, string>): Promise<string> {
  const remote = join(dir, 'remote.git');
  await mkdir(remote, { recursive: true });
  await git(remote, ['init', '--quiet', '--bare', '--initial-branch=main']);
  const seed = join(dir, 'seed');
  await cloneRemote(remote, seed);
  await commitFiles(seed, files, 'Seed the demo fleet config');
  return remote;
}

/** A people-side checkout of the remote (for pushing config changes, as a merged PR would). */
export async function cloneRemote(remote: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await git(dir, ['remote', 'add', 'origin', remote]);
  await git(dir, ['fetch', '--quiet', 'origin']).catch(() => '');
  const hasMain = await git(dir, ['ls-remote', '--heads', 'origin', 'main']);
  if (hasMain) await git(dir, ['reset', '--quiet', '--hard', 'origin/main']);
}

/** Bring a people-side checkout up to date (another writer may have pushed). */
export async function pullRemote(dir: string): Promise<void> {
  await git(dir, ['fetch', '--quiet', 'origin']);
  await git(dir, ['reset', '--quiet', '--hard', 'origin/main']);
}
