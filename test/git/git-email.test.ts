// cluster.yaml `git.email` (docs/config.md, docs/status.md#which-commits-are-llmgws):
// the email of every commit llmgw makes once the config is read, and the
// second email whose commits of generated files only are ticks to the readers
// of history (the console, `llmgw report`). Without it, only llmgw@localhost.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openHistory } from '../../src/console/history.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { createGitRunner } from '../../src/git/runner.js';
import { configuredEmail } from '../../src/git/tick-commit.js';
import { readLedgerHistory } from '../../src/ledger/history.js';
import { ONE_GPU_MODELS, TINY_CLUSTER, problemsOf, validConfig } from '../fixtures/index.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

test('git.email resolves when written, is absent when not, and must look like an email', () => {
  assert.is(validConfig(`${TINY_CLUSTER}git: { email: ops@corp.example }\n`, ONE_GPU_MODELS).cluster.git.email, 'ops@corp.example');
  assert.not.ok('email' in validConfig(TINY_CLUSTER, ONE_GPU_MODELS).cluster.git);
  const [problem] = problemsOf(`${TINY_CLUSTER}git: { email: "ops <x@y>" }\n`, ONE_GPU_MODELS);
  assert.match(problem ?? '', /^cluster\.yaml:\d+:\d+: git\.email: /);
});

test('configuredEmail reads git.email from cluster.yaml text; a broken, missing or non-string one is none', () => {
  assert.is(configuredEmail('name: t\ngit:\n  email: ops@corp.example\n'), 'ops@corp.example');
  assert.is(configuredEmail('name: t\n'), undefined);
  assert.is(configuredEmail('git: { email: 42 }\n'), undefined);
  assert.is(configuredEmail('git: { email: "  " }\n'), undefined);
  assert.is(configuredEmail('git: [unclosed\n'), undefined);
});

test("llmgw's commits carry git.email once it is set, author and committer; the console and the ledger count them as ticks, and another email's as a person's", async () => {
  const dir = sb.clone('work');
  sb.write(dir, 'cluster.yaml', 'apiVersion: llmgw/v1\nkind: Cluster\nname: t\ngit: { email: ops@corp.example }\n');
  sb.git(dir, 'commit', '--quiet', '-am', 'set git.email');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'STATUS.md', 'before\n');
  await repo.commit(['STATUS.md'], 'llmgw: before the config is read');
  repo.setGitEmail!('ops@corp.example');
  sb.write(dir, 'STATUS.md', 'after\n');
  await repo.commit(['STATUS.md'], 'llmgw: after');
  sb.write(dir, 'STATUS.md', 'forged\n');
  sb.git(dir, 'commit', '--quiet', '--author=llmgw <mallory@example>', '-am', 'llmgw: forged');
  assert.equal(sb.git(dir, 'log', '-3', '--format=%s|%ae|%ce').split('\n'), [
    'llmgw: forged|mallory@example|person@example.com',
    'llmgw: after|ops@corp.example|ops@corp.example',
    'llmgw: before the config is read|llmgw@localhost|llmgw@localhost',
  ]);

  const ticksOf = async (n: number) => (await (await openHistory(dir)).recent(n)).map((c) => [c.subject, c.tick]);
  assert.equal(await ticksOf(3), [
    ['llmgw: forged', false],
    ['llmgw: after', true],
    ['llmgw: before the config is read', true],
  ]);
  const range = { since: new Date(0).toISOString(), until: new Date(Date.now() + 60_000).toISOString() };
  const ledger = await readLedgerHistory(createGitRunner(dir, sb.env), range);
  // This sandbox's config is no fleet: every tick the ledger reads is one "not counted" line.
  assert.is(ledger.warnings.filter((w) => w.endsWith('not counted')).length, 2, 'both of llmgw’s commits, not the forged one');

  // Without git.email in cluster.yaml, the commit by ops@corp.example is a person's.
  sb.write(dir, 'cluster.yaml', 'apiVersion: llmgw/v1\nkind: Cluster\nname: t\n');
  sb.git(dir, 'commit', '--quiet', '-am', 'drop git.email');
  assert.equal(await ticksOf(4), [
    ['drop git.email', false],
    ['llmgw: forged', false],
    ['llmgw: after', false],
    ['llmgw: before the config is read', true],
  ]);
  const [, , after] = await (await openHistory(dir)).recent(3);
  assert.is((await (await openHistory(dir)).detail(after!.sha))?.commit.tick, false, 'the detail page agrees with the list');
  assert.is((await readLedgerHistory(createGitRunner(dir, sb.env), range)).warnings.length, 1, 'the ledger agrees');
});

test.run();
