// Git as a crash-only store: a silent remote cannot hang a call, a kill -9
// leaves nothing that stops later ticks, and llmgw's own workdir is cloned
// afresh when it cannot be repaired — a person's checkout never is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { gitRunsIn, repairCheckout } from '../../src/git/repair.js';
import { GitTimeoutError, createGitRunner } from '../../src/git/runner.js';
import { GitError } from '../../src/errors.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

/** A TCP server that accepts every connection and never says a word. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const OLD = new Date('2020-01-01T00:00:00Z');

for (const scheme of ['git', 'http'] as const) {
  test(`a ${scheme}:// remote that accepts and never answers: the fetch is killed past the timeout, with one line, and no git process is left`, async () => {
    const silent = await silentServer();
    try {
      const dir = sb.clone('work');
      sb.git(dir, 'remote', 'set-url', 'origin', `${scheme}://127.0.0.1:${silent.port}/config.git`);
      const repo = await openConfigRepo({ dir, env: sb.env, timeoutMs: 700 });
      const err = await repo.sync().then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(err, GitTimeoutError);
      assert.is((err as Error).message, 'git fetch from origin main failed: no answer within 700 ms (git.timeout): killed');
      // The helper git starts for http (git-remote-http) went with it: its process group was killed.
      for (let i = 0; i < 50 && gitRunsIn(dir, join(dir, '.git')); i++) await sleep(20);
      assert.is(gitRunsIn(dir, join(dir, '.git')), false);
    } finally {
      await silent.close();
    }
  });
}

test('LLMGW_GIT_TIMEOUT bounds git before cluster.yaml is read, and wins over git.timeout after', async () => {
  const silent = await silentServer();
  try {
    const dir = sb.clone('work');
    sb.git(dir, 'remote', 'set-url', 'origin', `git://127.0.0.1:${silent.port}/config.git`);
    const repo = await openConfigRepo({ dir, env: { ...sb.env, LLMGW_GIT_TIMEOUT: '1s' } });
    repo.setGitTimeout!(10 * 60_000);
    const err = await repo.sync().then(
      () => null,
      (e: unknown) => e,
    );
    assert.match((err as Error).message, /no answer within 1s \(git\.timeout\): killed$/);
    const bad = await openConfigRepo({ dir, env: { ...sb.env, LLMGW_GIT_TIMEOUT: 'soon' } }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(bad, GitError);
    assert.is((bad as Error).message, "LLMGW_GIT_TIMEOUT 'soon' is not a duration (e.g. 90s, 2m)");
  } finally {
    await silent.close();
  }
});

/** `git commit -a` waiting on its editor, which holds index.lock meanwhile. */
async function commitAwaitingEditor(dir: string): Promise<{ pid: number; exited: Promise<unknown> }> {
  sb.write(dir, 'cluster.yaml', 'edited\n');
  const env = { ...sb.env, GIT_EDITOR: 'sleep 60;:', GIT_AUTHOR_NAME: 'P', GIT_AUTHOR_EMAIL: 'p@x', GIT_COMMITTER_NAME: 'P', GIT_COMMITTER_EMAIL: 'p@x' };
  const child = spawn('git', ['commit', '-a'], { cwd: dir, env, detached: true, stdio: 'ignore' });
  const exited = new Promise((r) => child.on('exit', r));
  for (let i = 0; !existsSync(join(dir, '.git', 'index.lock')); i++) {
    if (i > 1000) throw new Error('git commit -a never took index.lock');
    await sleep(10);
  }
  return { pid: child.pid!, exited };
}

/** A kill -9 of git mid-operation (its whole process group) leaves index.lock behind. */
async function killedCommitLeavesLock(dir: string): Promise<void> {
  const c = await commitAwaitingEditor(dir);
  process.kill(-c.pid, 'SIGKILL');
  await c.exited;
}

test('index.lock and HEAD.lock left by a kill -9, older than the timeout: removed with a line, and the next commit works', async () => {
  const dir = sb.clone('work');
  await killedCommitLeavesLock(dir);
  writeFileSync(join(dir, '.git', 'HEAD.lock'), '');
  for (const f of ['index.lock', 'HEAD.lock']) utimesSync(join(dir, '.git', f), OLD, OLD);
  const repo = await openConfigRepo({ dir, env: sb.env });
  const lines: string[] = [];
  await repo.sync((l) => lines.push(l));
  assert.equal(lines.sort(), [
    `removed a stale git lock .git/HEAD.lock (from 2020-01-01T00:00:00.000Z; no git process works in ${dir})`,
    `removed a stale git lock .git/index.lock (from 2020-01-01T00:00:00.000Z; no git process works in ${dir})`,
  ]);
  sb.write(dir, '.llmgw/state.json', '{}\n');
  assert.ok(await repo.commit(['.llmgw/state.json'], 'llmgw: state'));
});

test('a lock younger than the timeout, or one a live git still holds, is left alone', async () => {
  const dir = sb.clone('work');
  await killedCommitLeavesLock(dir);
  const repo = await openConfigRepo({ dir, env: sb.env });
  const lines: string[] = [];
  await repo.sync((l) => lines.push(l));
  assert.ok(existsSync(join(dir, '.git', 'index.lock')), 'young: may be a live call of another process');
  // A person's `git commit` waiting on their editor: old, but held.
  const other = sb.clone('other');
  const editor = await commitAwaitingEditor(other);
  try {
    utimesSync(join(other, '.git', 'index.lock'), OLD, OLD);
    await (await openConfigRepo({ dir: other, env: sb.env })).sync((l) => lines.push(l));
    assert.ok(existsSync(join(other, '.git', 'index.lock')));
    assert.equal(lines, []);
  } finally {
    process.kill(-editor.pid, 'SIGKILL');
  }
});

test('a rebase llmgw left half done (its marker names a dead process) is undone; a person’s rebase is left with one line saying what to do', async () => {
  const dir = sb.clone('work');
  const other = sb.clone('other');
  sb.write(other, 'cluster.yaml', 'theirs\n');
  sb.git(other, 'commit', '--quiet', '-am', 'theirs');
  sb.git(other, 'push', '--quiet');
  sb.write(dir, 'cluster.yaml', 'mine\n');
  sb.git(dir, 'commit', '--quiet', '-am', 'mine');
  sb.git(dir, 'fetch', '--quiet');
  assert.throws(() => sb.git(dir, 'rebase', 'origin/main'));
  assert.ok(existsSync(join(dir, '.git', 'rebase-merge')));
  const repo = await openConfigRepo({ dir, env: sb.env });
  const err = await repo.sync().then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, GitError);
  assert.is(
    (err as Error).message,
    `a rebase is in progress in ${dir} that llmgw did not start: finish it (git rebase --continue, or git rebase --abort); llmgw changes nothing there meanwhile`,
  );
  assert.ok(existsSync(join(dir, '.git', 'rebase-merge')), 'the person’s rebase is untouched');

  writeFileSync(join(dir, '.git', 'llmgw-op'), JSON.stringify({ pid: 999_999_999, op: 'rebase' }));
  const lines: string[] = [];
  await repo.sync((l) => lines.push(l)).catch(() => undefined);
  assert.ok(lines.includes(`undid a rebase an llmgw process left half done in ${dir}`), lines.join('\n'));
  assert.not.ok(existsSync(join(dir, '.git', 'rebase-merge')));
  assert.not.ok(existsSync(join(dir, '.git', 'llmgw-op')));
});

/**
 * llmgw's own workdir with an unpushed commit of its state, a person's commit of `files` on the
 * remote, and a rebase onto it stopped at its first step (HEAD detached on the remote's commit).
 */
async function rebaseUnderWay(files: Record<string, string>) {
  const dir = join(sb.root, 'work');
  const repo = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env });
  sb.write(dir, '.llmgw/state.json', '{}\n');
  assert.ok(await repo.commit(['.llmgw/state.json'], 'llmgw: state'));
  const other = sb.clone('other');
  for (const [f, text] of Object.entries(files)) sb.write(other, f, text);
  sb.git(other, 'add', ...Object.keys(files));
  sb.git(other, 'commit', '--quiet', '-m', 'a note');
  sb.git(other, 'push', '--quiet');
  sb.git(dir, 'fetch', '--quiet');
  sb.git(dir, '-c', 'sequence.editor=sed -i 1ibreak', 'rebase', '--interactive', 'origin/main');
  return { dir, repo };
}

test('a rebase in llmgw’s own workdir that a young lock (not its own killed git’s) keeps from being undone stays recorded until the lock is stale, then the workdir goes back to its branch with its unpushed commit', async () => {
  const { dir, repo } = await rebaseUnderWay({ 'notes.md': 'a note\n' });
  // HEAD detached on the remote's commit, the rebase recorded, and an index.lock no marker explains
  // (another machine's or pid namespace's git may hold it): only a lock's age says it is stale.
  assert.is(sb.git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'HEAD');
  writeFileSync(join(dir, '.git', 'index.lock'), '');

  const lines: string[] = [];
  const young = await repo
    .sync((l) => lines.push(l))
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(young, GitError);
  assert.ok(existsSync(join(dir, '.git', 'rebase-merge')), 'still recorded: the next tick can undo it');

  utimesSync(join(dir, '.git', 'index.lock'), OLD, OLD);
  await repo.sync((l) => lines.push(l));
  assert.ok(
    lines.some((l) => l.startsWith(`undid a rebase an llmgw process left half done in ${dir}`)),
    lines.join('\n'),
  );
  assert.is(sb.git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  // The unpushed commit is on the branch, on top of the person's: nothing of llmgw's was dropped.
  assert.is(sb.git(dir, 'log', '-1', '--format=%s'), 'llmgw: state');
  assert.is(sb.git(dir, 'rev-parse', 'HEAD^'), sb.git(dir, 'rev-parse', 'origin/main'));
});

test('what a killed rebase left in llmgw’s own workdir — a lock however young, files checked out but never recorded — goes with the rebase undone: the next rebase keeps llmgw’s unpushed commit, no fresh clone', async () => {
  const { dir, repo } = await rebaseUnderWay({ 'notes.md': 'a note\n' });
  // Killed while checking out the remote's commit: notes.md written, the index never updated, a lock left a moment ago.
  sb.git(dir, 'rm', '--cached', '--quiet', 'notes.md');
  sb.write(dir, 'mine.txt', 'a file of someone’s\n');
  writeFileSync(join(dir, '.git', 'llmgw-op'), JSON.stringify({ pid: 999_999_999, op: 'rebase' }));
  writeFileSync(join(dir, '.git', 'CHERRY_PICK_HEAD.lock'), '');
  const leftAt = new Date(statSync(join(dir, '.git', 'CHERRY_PICK_HEAD.lock')).mtimeMs).toISOString();

  const lines: string[] = [];
  await repo.sync((l) => lines.push(l));
  assert.equal(lines, [
    `removed a stale git lock .git/CHERRY_PICK_HEAD.lock (from ${leftAt}; no git process works in ${dir})`,
    `undid a rebase an llmgw process left half done in ${dir}`,
  ]);
  assert.is(sb.git(dir, 'log', '-1', '--format=%s'), 'llmgw: state');
  assert.is(sb.git(dir, 'rev-parse', 'HEAD^'), sb.git(dir, 'rev-parse', 'origin/main'));
  assert.is(readFileSync(join(dir, 'notes.md'), 'utf8'), 'a note\n');
  assert.is(readFileSync(join(dir, 'mine.txt'), 'utf8'), 'a file of someone’s\n', 'an untracked file of another content is left alone');
});

test('a file whose write a killed rebase cut short (empty, or the first bytes of what git holds) goes with the undo; a longer or different untracked file at such a path stays', async () => {
  const long = 'a line of a long note\n'.repeat(2000);
  const { dir } = await rebaseUnderWay(Object.fromEntries(['empty.md', 'start.md', 'differs.md', 'longer.md'].map((f) => [`notes/${f}`, long])));
  // Killed inside the checkout of the remote's commit: one file created and not yet written, one
  // cut at a block, none recorded in the index. The other two are not what a cut write leaves.
  sb.git(dir, 'rm', '--cached', '--quiet', '-r', 'notes');
  writeFileSync(join(dir, 'notes/empty.md'), '');
  writeFileSync(join(dir, 'notes/start.md'), long.slice(0, 4096));
  writeFileSync(join(dir, 'notes/differs.md'), `${long.slice(0, 4095)}X`);
  writeFileSync(join(dir, 'notes/longer.md'), `${long}more\n`);
  writeFileSync(join(dir, '.git', 'llmgw-op'), JSON.stringify({ pid: 999_999_999, op: 'rebase' }));

  // The repair alone (a sync would go on to rebase, stop at the two left, and clone afresh).
  const lines: string[] = [];
  await repairCheckout({
    git: createGitRunner(dir, sb.env),
    top: dir,
    gitDir: join(dir, '.git'),
    staleAfterMs: 60_000,
    managed: true,
    branch: 'main',
    log: (l) => lines.push(l),
  });
  assert.equal(lines, [`undid a rebase an llmgw process left half done in ${dir}`]);
  assert.equal(
    ['empty.md', 'start.md', 'differs.md', 'longer.md'].map((f) => [
      f,
      existsSync(join(dir, 'notes', f)) ? readFileSync(join(dir, 'notes', f), 'utf8').length : null,
    ]),
    [
      ['empty.md', null],
      ['start.md', null],
      ['differs.md', 4096],
      ['longer.md', long.length + 5],
    ],
  );
});

test('with only the cut-short file in the way, the next sync rebases llmgw’s unpushed commit onto the person’s: no fresh clone', async () => {
  const { dir, repo } = await rebaseUnderWay({ 'notes.md': 'a note\n'.repeat(3000) });
  sb.git(dir, 'rm', '--cached', '--quiet', 'notes.md');
  writeFileSync(join(dir, 'notes.md'), 'a note\n'.repeat(100).slice(0, 512));
  writeFileSync(join(dir, '.git', 'llmgw-op'), JSON.stringify({ pid: 999_999_999, op: 'rebase' }));

  const lines: string[] = [];
  await repo.sync((l) => lines.push(l));
  assert.equal(lines, [`undid a rebase an llmgw process left half done in ${dir}`]);
  assert.not.ok(existsSync(join(sb.root, 'work.llmgw-broken')), 'not cloned afresh');
  assert.is(sb.git(dir, 'log', '-1', '--format=%s'), 'llmgw: state');
  assert.is(sb.git(dir, 'rev-parse', 'HEAD^'), sb.git(dir, 'rev-parse', 'origin/main'));
  assert.is(readFileSync(join(dir, 'notes.md'), 'utf8'), 'a note\n'.repeat(3000));
});

test('llmgw’s own --workdir that git cannot read any more is cloned afresh, the old one kept aside', async () => {
  const dir = join(sb.root, 'work');
  await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env });
  writeFileSync(join(dir, '.git', 'HEAD'), 'garbage\n');
  const lines: string[] = [];
  const repo = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env, log: (l) => lines.push(l) });
  assert.is(await repo.head(), sb.git(sb.remote, 'rev-parse', 'main'));
  assert.is(lines.length, 1);
  assert.match(
    lines[0]!,
    /^warning: .*work: not a usable git checkout \(.*\): cloned .*remote\.git afresh \(the old checkout is kept as work\.llmgw-broken\)$/,
  );
  assert.is(readFileSync(join(dir + '.llmgw-broken', '.git', 'HEAD'), 'utf8'), 'garbage\n');
});

test('a --workdir holding someone else’s files is refused, never replaced; a --repo checkout is never re-cloned', async () => {
  const dir = join(sb.root, 'mine');
  sb.write(dir, 'thesis.tex', 'years of work\n');
  const err = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, GitError);
  assert.match((err as Error).message, /it is not a checkout of .* that llmgw may replace: repair it by hand or give another --workdir$/);
  assert.equal(readdirSync(dir), ['thesis.tex']);

  const person = sb.clone('person');
  const repo = await openConfigRepo({ dir: person, env: sb.env });
  sb.write(person, 'models.yaml', 'an edit in progress\n');
  writeFileSync(join(person, '.git', 'refs', 'remotes', 'origin', 'main'), 'not a sha\n');
  const bad = await repo.sync().then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(bad, GitError);
  assert.is(readFileSync(join(person, 'models.yaml'), 'utf8'), 'an edit in progress\n');
});

test.run();
