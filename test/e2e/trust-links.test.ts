// Issue #11, attacks 1 and 2, end to end against a bare remote and the real
// tick (docs/security.md): a merged PR makes STATUS.md a symbolic link to a
// secret (a private key, /proc/self/environ) and breaks the config in a way
// only production sees; another makes .llmgw/ a link to a directory outside
// the checkout. The tick reads and writes nothing through the links, nothing
// secret lands on the remote, the link is replaced by a regular file in
// llmgw's own commit, and the next tick after the config is fixed recovers.

import { execFile } from 'node:child_process';
import { readdir, readFile, symlink, mkdir, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDocument } from 'yaml';
import { git, pullRemote } from '../../src/demo/git-remote.js';
import { CANARY, remoteLeaks } from '../helpers/leak-check.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}-private-key-material\n-----END OPENSSH PRIVATE KEY-----\n`;

let e: E2E;
let outside = '';

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
  outside = join(e.world.dir, 'outside');
  await mkdir(outside, { recursive: true });
});
test.after(async () => {
  await e.close();
});

/** cluster.yaml with a webhook whose ${VAR} production lacks: valid in PR CI (a warning), invalid at reconcile time. */
function withUnsetHook(clusterYaml: string): string {
  const doc = parseDocument(clusterYaml);
  doc.setIn(['notify', 'webhooks'], [{ url: '${LLMGW_TRUST_TEST_UNSET_HOOK}' }]);
  return doc.toString();
}

/** As a merged PR: `links` (repo path -> target) become symbolic links, `files` are written, all committed and pushed. */
async function pushPr(files: Record<string, string>, links: Record<string, string>, message: string): Promise<void> {
  await pullRemote(e.people);
  for (const [path, text] of Object.entries(files)) await writeFile(join(e.people, path), text);
  for (const [path, target] of Object.entries(links)) {
    await rm(join(e.people, path), { recursive: true, force: true });
    await symlink(target, join(e.people, path));
  }
  await git(e.people, ['add', '--all', '--', ...Object.keys(files), ...Object.keys(links)]);
  await git(e.people, ['commit', '--quiet', '-m', message]);
  await git(e.people, ['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
}

async function modeOnRemote(path: string): Promise<string> {
  return (await git(e.world.remote, ['ls-tree', 'main', '--', path])).split(' ', 1)[0] ?? '';
}

test('a STATUS.md linked to a private key, with a config only production finds invalid: the key never reaches the remote, and the tick after the fix recovers', async () => {
  const first = await e.tick();
  assert.is(first.configInvalid, false);
  const keyFile = join(outside, 'id_ed25519');
  await writeFile(keyFile, KEY);

  await pushPr({ 'cluster.yaml': withUnsetHook(e.world.clusterYaml) }, { 'STATUS.md': keyFile }, 'Add a webhook; STATUS.md as a link');
  const lines: string[] = [];
  const r = await e.tick({ log: (l) => lines.push(l) });
  assert.equal(await remoteLeaks(e.world.remote), []);
  assert.is(r.configInvalid, true);
  assert.is(r.plan, null);
  assert.ok(r.pushed, 'the repair is pushed');
  // The link is gone from the branch: a regular file, written afresh, names the problem.
  assert.is(await modeOnRemote('STATUS.md'), '100644');
  const status = await git(e.world.remote, ['show', 'main:STATUS.md']);
  assert.match(status, /STATUS\.md:1:1: STATUS\.md is a symbolic link: llmgw keeps STATUS\.md and \.llmgw\/ only as regular files/);
  assert.match(status, /environment variable LLMGW_TRUST_TEST_UNSET_HOOK is not set/);
  assert.not.match(status, /PRIVATE KEY/);
  assert.is(await readFile(keyFile, 'utf8'), KEY, 'the link target is neither read into STATUS.md nor written');
  assert.equal(await remoteLeaks(e.world.remote), []);
  assert.not.ok(lines.join('\n').includes(CANARY));

  // Fixed by a person: the config is valid again and the tick plans and applies as before.
  await pushPr({ 'cluster.yaml': e.world.clusterYaml }, {}, 'Remove the webhook');
  const fixed = await e.tick();
  assert.is(fixed.configInvalid, false);
  assert.ok(fixed.plan);
  assert.is(await modeOnRemote('STATUS.md'), '100644');
  assert.not.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /config on this branch is invalid/);
  assert.equal(await remoteLeaks(e.world.remote), []);
});

test('a STATUS.md linked to /proc/self/environ: `llmgw reconcile` (its own process, secrets in its environment) publishes none of them', async () => {
  await pushPr({ 'cluster.yaml': withUnsetHook(e.world.clusterYaml) }, { 'STATUS.md': '/proc/self/environ' }, 'STATUS.md as a link to the environment');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0', LLMGW_WEBHOOK_SECRET: `${CANARY}-webhook-secret` };
  const run = await exec(process.execPath, [main, 'reconcile', '--repo', e.workdir], { env }).then(
    (out) => ({ code: 0, ...out }),
    (err: unknown) => err as { code: number; stdout: string; stderr: string },
  );
  assert.equal(await remoteLeaks(e.world.remote), []);
  assert.is(run.code, 1, 'an invalid config is exit 1');
  assert.match(run.stderr + run.stdout, /STATUS\.md:1:1: STATUS\.md is a symbolic link/, run.stdout + run.stderr);
  assert.not.ok((run.stdout + run.stderr).includes(CANARY));
  assert.is(await modeOnRemote('STATUS.md'), '100644');
  assert.not.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /LLMGW_WEBHOOK_SECRET|PATH=/);
  assert.equal(await remoteLeaks(e.world.remote), []);

  await pushPr({ 'cluster.yaml': e.world.clusterYaml }, {}, 'Remove the webhook');
  assert.is((await e.tick()).configInvalid, false);
});

test('a .llmgw/ linked to a directory outside the checkout: nothing is written there, the link is replaced by a directory, and the ticks after recover', async () => {
  const target = join(outside, 'state-dir');
  await mkdir(target, { recursive: true });
  await writeFile(join(target, 'state.json'), `{"version":1,"note":"${CANARY}"}\n`);
  await pushPr({}, { '.llmgw': target }, '.llmgw as a link');

  const r = await e.tick();
  assert.is(r.configInvalid, true);
  assert.equal((await readdir(target)).sort(), ['state.json'], 'nothing written outside the checkout');
  assert.is(await readFile(join(target, 'state.json'), 'utf8'), `{"version":1,"note":"${CANARY}"}\n`);
  assert.is(await modeOnRemote('.llmgw'), '040000');
  assert.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /\.llmgw:1:1: \.llmgw is a symbolic link/);

  // No fix needed from a person: the repaired branch is valid, and every tick after it works.
  const next = await e.tick();
  assert.is(next.configInvalid, false);
  assert.is(await modeOnRemote('.llmgw/observed.json'), '100644');
  const again = await e.tick();
  assert.is(again.configInvalid, false);
  assert.equal((await readdir(target)).sort(), ['state.json']);
  assert.equal(await remoteLeaks(e.world.remote), []);
});

test('an observed.json committed as a link to a forged snapshot outside: refused, never read, and deleted by the repair', async () => {
  const forged = join(outside, 'forged.json');
  await writeFile(forged, JSON.stringify({ version: 1, observedAt: '2026-01-01T00:00:00Z', nodes: [], routers: [], note: CANARY }));
  await pushPr({}, { '.llmgw/observed.json': forged }, 'observed.json as a link');
  const lines: string[] = [];
  const r = await e.tick({ log: (l) => lines.push(l) });
  assert.is(r.configInvalid, true);
  assert.match(lines.join('\n'), /\.llmgw\/observed\.json: not read: \.llmgw\/observed\.json is a symbolic link/);
  assert.is(await modeOnRemote('.llmgw/observed.json'), '');
  assert.is((await e.tick()).configInvalid, false);
  assert.is(await modeOnRemote('.llmgw/observed.json'), '100644');
  assert.equal(await remoteLeaks(e.world.remote), []);
});

test.run();
