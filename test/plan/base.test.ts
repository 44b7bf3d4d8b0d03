// `llmgw plan --base REF` on a real git repo that a real tick reconciled
// (agents answered in-process): REF's snapshot, state and STATUS.md, never the
// branch's; every action with its cause; a warning when the branch edits
// llmgw's files; a clear exit 0 for a repo never reconciled.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { git } from '../../src/demo/git-remote.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { captureIo } from '../helpers/io.js';
import { at, modelsYaml } from '../fixtures/index.js';
import { tickClusterYaml, tickNodes, tickWorld, type TickWorld } from '../fixtures/tick-world.js';

const CLUSTER = tickClusterYaml({ nodes: 6, webhook: 'http://127.0.0.1:9/hook', extra: ['lostAfter: 10m'] });
const models = (a: number, b: number) =>
  modelsYaml([
    { name: 'a', gpus: 4, replicas: a },
    { name: 'b', gpus: 8, replicas: b },
  ]);
const iso = (min: number) => at(min * 60);

/** A repo on main that real ticks reconciled until the fleet settled. */
async function reconciled(): Promise<TickWorld> {
  const world = await tickWorld({ cluster: CLUSTER, models: models(2, 1), nodes: tickNodes(6), prefix: 'base' });
  const tick = (min: number) => world.tick(min, { notify: false });
  await tick(0);
  await tick(1);
  return { ...world, tick };
}

async function plan(dir: string, args: string[]) {
  const c = captureIo({ cwd: dir, env: {} });
  const code = await main(['plan', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

async function branch(dir: string, name: string, files: Record<string, string>): Promise<void> {
  await git(dir, ['checkout', '--quiet', '-b', name]);
  for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', `pr ${name}`]);
}

test('a settled fleet: "before" is REF:STATUS.md, nothing changes, and after is what `status --json` says of REF', async () => {
  const r = await reconciled();
  const observedAt = JSON.parse(await git(r.dir, ['show', 'main:.llmgw/observed.json'])).observedAt as string;
  const text = await plan(r.dir, ['--base', 'main', '--now', observedAt]);
  assert.is(text.code, 0, text.err);
  assert.match(text.out, /^No changes\. The fleet matches models\.yaml\.$/m);
  assert.match(text.out, /^STATUS\.md would not change\.$/m);
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--now', observedAt, '--format', 'json'])).out);
  const c = captureIo({ cwd: r.dir, env: {} });
  assert.is(await main(['status', '--json', '--observed', '.llmgw/observed.json', '--now', observedAt], c.io), 0);
  assert.equal(json.after, JSON.parse(c.out()));
  assert.equal([json.base, json.warnings, json.actions], ['main', [], []]);
  await rm(r.dir, { recursive: true, force: true });
});

test('each action says whether the branch causes it or REF does it anyway, and text and markdown show them apart', async () => {
  const r = await reconciled();
  // A node goes silent; the tick records since when (STATUS.md changes, so it commits).
  const nodeOfB = [...r.canned.replicas].find(([, list]) => list.some((x) => x.model === 'b'))![0];
  r.canned.replicas.delete(nodeOfB);
  assert.ok((await r.tick(2)).commit);
  await branch(r.dir, 'scale-a', { 'models.yaml': models(3, 1) });
  // Twenty minutes on, that node is lost: REF would place b elsewhere anyway.
  const now = iso(22);
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--now', now, '--format', 'json'])).out);
  const causes = json.actions.map((a: { op: string; model: string; cause: string }) => `${a.op} ${a.model} ${a.cause}`);
  assert.equal(causes, ['start b pending', 'start a change']);
  const text = (await plan(r.dir, ['--base', 'main', '--now', now])).out;
  assert.match(text, /^This change:\n {2}\+ start {2}a-2 .*\n\nAlready pending on main \(done whether or not this merges\):\n {2}\+ start {2}b-1 /m);
  assert.match(text, /^1 caused by this change, 1 already pending on main\.$/m);
  assert.match(text, /^--- STATUS\.md \(main\)$/m);
  const md = (await plan(r.dir, ['--base', 'main', '--now', now, '--format', 'markdown'])).out;
  assert.ok(md.indexOf('#### This change') < md.indexOf('#### Already pending on main'), md);
  assert.match(md.split('#### Already pending on main')[1]!, /\| \+ start \| b-1 \| b \|/);
  assert.match(md.split('#### Already pending on main')[0]!, /\| \+ start \| a-2 \| a \|/);
  await rm(r.dir, { recursive: true, force: true });
});

test("a branch that edits .llmgw/observed.json is warned about in every format, and planned from REF's snapshot all the same", async () => {
  const r = await reconciled();
  const observed = JSON.parse(await readFile(join(r.dir, '.llmgw/observed.json'), 'utf8'));
  for (const n of observed.nodes) n.report.replicas = [];
  await branch(r.dir, 'sneaky', { 'models.yaml': models(1, 1), '.llmgw/observed.json': JSON.stringify(observed) });
  const now = observed.observedAt as string;
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--now', now, '--format', 'json'])).out);
  // Planned from main's snapshot: a-1 runs there and is stopped; from the branch's edited one nothing would stop.
  assert.equal(
    json.actions.map((a: { op: string; replica: string; cause: string }) => `${a.op} ${a.replica} ${a.cause}`),
    ['stop a-1 change'],
  );
  const warning = "this branch changes .llmgw/observed.json against main: llmgw writes these files, and this plan uses main's copies, not the branch's";
  assert.equal(json.warnings, [warning]);
  const text = (await plan(r.dir, ['--base', 'main', '--now', now])).out;
  assert.ok(text.startsWith(`Warning: ${warning}.\n`), text);
  const md = (await plan(r.dir, ['--base', 'main', '--now', now, '--format', 'markdown'])).out;
  assert.ok(md.startsWith(`### llmgw plan\n\n> **Warning:** this branch changes .llmgw/observed.json against main:`), md);
  await rm(r.dir, { recursive: true, force: true });
});

test('REF never reconciled: exit 0, the config checked, one sentence on when placements appear; a broken branch config still fails', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-base-'));
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(dir, 'README.md'), 'fleet config\n');
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', 'empty repo']);
  await branch(dir, 'first', { 'cluster.yaml': CLUSTER, 'models.yaml': models(1, 1) });
  for (const format of ['text', 'json', 'markdown']) {
    const r = await plan(dir, ['--base', 'main', '--format', format, '--detailed-exitcode']);
    assert.is(r.code, 0, r.err);
    assert.match(
      r.out,
      /The config is valid\. main has no \.llmgw\/observed\.json yet: placements appear once the fleet has been observed by a first `llmgw reconcile`\./,
    );
  }
  const json = JSON.parse((await plan(dir, ['--base', 'main', '--format', 'json'])).out);
  assert.equal([json.actions, json.after, json.warnings], [[], null, []]);
  await writeFile(join(dir, 'models.yaml'), models(-1, 1));
  const broken = await plan(dir, ['--base', 'main']);
  assert.is(broken.code, 1);
  assert.match(broken.err, /^models\.yaml:\d+:\d+: models\[0\]\.replicas: /m);
  await rm(dir, { recursive: true, force: true });
});

test("REF's own config broken: the PR plan still runs, every action is this change's, and it says why", async () => {
  const r = await reconciled();
  await writeFile(join(r.dir, 'models.yaml'), 'apiVersion: llmgw/v1\nkind: Models\nmodels: [{ name: a }]\n');
  await git(r.dir, ['commit', '--quiet', '-am', 'broken on main']);
  await branch(r.dir, 'fix', { 'models.yaml': models(3, 1) });
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--format', 'json'])).out);
  assert.ok(json.actions.length > 0);
  assert.ok(json.actions.every((a: { cause: string }) => a.cause === 'change'));
  assert.match(json.warnings[0], /^the config on main is invalid \(main:models\.yaml:3:\d+: .*\): every action is counted as this change's$/);
  await rm(r.dir, { recursive: true, force: true });
});

test('a ref that names no commit, or a directory that is no checkout, is one line and exit 1', async () => {
  const r = await reconciled();
  const bad = await plan(r.dir, ['--base', 'origin/nope']);
  assert.equal([bad.code, bad.out], [1, '']);
  assert.match(bad.err, /^llmgw plan: origin\/nope: not a commit in .*\n$/);
  const plain = await mkdtemp(join(tmpdir(), 'llmgw-base-'));
  await writeFile(join(plain, 'cluster.yaml'), CLUSTER);
  await writeFile(join(plain, 'models.yaml'), models(1, 1));
  const none = await plan(plain, ['--base', 'main']);
  assert.is(none.code, 1);
  assert.match(none.err, /--base needs a git checkout/);
  assert.not.match(none.err, /\n.*\n/);
  await rm(plain, { recursive: true, force: true });
  await rm(r.dir, { recursive: true, force: true });
});

test('--observed with --base: the fleet from that file, state and STATUS.md still from REF', async () => {
  const r = await reconciled();
  const observed = JSON.parse(await readFile(join(r.dir, '.llmgw/observed.json'), 'utf8'));
  for (const n of observed.nodes) n.report.replicas = [];
  await writeFile(join(r.dir, 'elsewhere.json'), JSON.stringify(observed));
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--observed', 'elsewhere.json', '--now', observed.observedAt, '--format', 'json'])).out);
  assert.equal(
    json.actions.map((a: { op: string }) => a.op),
    ['start', 'start', 'start'],
  );
  assert.ok(
    json.actions.every((a: { cause: string }) => a.cause === 'pending'),
    "main's config would start them as well",
  );
  await rm(r.dir, { recursive: true, force: true });
});

test('the plan of a pull request is what the tick after its merge commits: STATUS.md byte for byte, status JSON but for observedAt', async () => {
  const r = await reconciled();
  await branch(r.dir, 'pr', { 'models.yaml': models(3, 0) });
  const json = JSON.parse((await plan(r.dir, ['--base', 'main', '--now', iso(5), '--format', 'json'])).out);
  assert.equal(
    json.actions.map((a: { op: string; cause: string }) => `${a.op} ${a.cause}`),
    ['stop change', 'start change'],
  );
  await git(r.dir, ['checkout', '--quiet', 'main']);
  await git(r.dir, ['merge', '--quiet', '--ff-only', 'pr']);
  const tick = await r.tick(5);
  assert.equal([tick.applied, tick.outcome!.failed], [true, 0]);
  assert.is(await readFile(join(r.dir, 'STATUS.md'), 'utf8'), renderStatusMarkdown(json.after));
  const c = captureIo({ cwd: r.dir, env: {} });
  assert.is(await main(['status', '--json', '--observed', '.llmgw/observed.json', '--now', iso(5)], c.io), 0);
  assert.equal({ ...JSON.parse(c.out()), observedAt: null }, { ...json.after, observedAt: null });
  await rm(r.dir, { recursive: true, force: true });
});

test.run();
