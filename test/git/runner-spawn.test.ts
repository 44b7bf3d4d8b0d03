// A git that cannot be started is a GitError naming why, never an unhandled
// 'error' event (out of descriptors, Node sets up no pipes and reports the
// failure a turn later) and never taken for git's own "no" by tryRun.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitError } from '../../src/errors.js';
import { createGitRunner } from '../../src/git/runner.js';

const runnerModule = fileURLToPath(new URL('../../src/git/runner.js', import.meta.url));

test('out of descriptors (EMFILE): run rejects with a GitError naming the cause, and the process lives on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-spawn-'));
  try {
    const script = join(dir, 'child.mjs');
    writeFileSync(
      script,
      `import { openSync } from 'node:fs';
const { createGitRunner } = await import(${JSON.stringify(runnerModule)});
const fds = [];
try { for (;;) fds.push(openSync('/dev/null', 'r')); } catch {}
const git = createGitRunner(${JSON.stringify(dir)}, process.env);
const out = {};
try { await git.run(['--version'], 'git version'); out.run = 'resolved'; } catch (e) { out.run = e.constructor.name + ': ' + e.message; }
try { const r = await git.tryRun(['rev-parse', 'HEAD']); out.tryRun = 'resolved ' + JSON.stringify(r); } catch (e) { out.tryRun = e.constructor.name + ': ' + e.message; }
setTimeout(() => { process.stdout.write(JSON.stringify(out)); }, 50);
`,
    );
    const r = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" "$1"', process.execPath, script], { encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 0, `child exited ${String(r.status)}: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { run: string; tryRun: string };
    assert.match(out.run, /^GitError: git --version: could not start git: spawn git EMFILE \(too many open files\)$/);
    assert.match(out.tryRun, /^GitError: git rev-parse: could not start git: .*EMFILE/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no git on PATH (ENOENT): a GitError that says so, from run and from tryRun alike', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-spawn-'));
  try {
    const git = createGitRunner(dir, { PATH: dir, HOME: dir });
    const err = await git.run(['status'], 'git status').then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(err, GitError);
    assert.match((err as Error).message, /could not start git: spawn git ENOENT \(is git installed and on PATH\?\)/);
    const err2 = await git.tryRun(['rev-parse', 'refs/llmgw/lease']).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(err2, GitError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
