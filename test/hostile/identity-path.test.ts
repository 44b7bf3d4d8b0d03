// A key path read from the environment is the environment's (docs/security.md):
// cluster.yaml's `ssh.identityFile: ${LLMGW_KEY}` naming a file the reconciler
// cannot read fails every node's gather in one clear line, and that line
// names the variable, never the path it resolved to — not in the tick's log,
// not in observed.json or STATUS.md, not in any commit the remote holds.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from '../e2e/fleet-world.js';

/** A path nothing else in the world contains: if it shows anywhere, it leaked. */
const KEY_DIR_NAME = 'private-key-dir-7c41d2';

let e: E2E;
let keyPath: string;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
  const dir = join(e.world.dir, KEY_DIR_NAME);
  await mkdir(dir);
  keyPath = join(dir, 'id_ed25519');
  await writeFile(keyPath, await readFile(e.world.sim.identityFile));
  // Unreadable to this process (root reads any file: then the key names a directory, which no one reads as a key).
  await chmod(keyPath, 0o000);
  if (process.getuid?.() === 0) keyPath = dir;
  const cluster = e.world.clusterYaml.replace(/identityFile: .*\n/, 'identityFile: ${LLMGW_KEY}\n');
  assert.ok(cluster.includes('identityFile: ${LLMGW_KEY}'), 'the world writes ssh.identityFile on one line');
  await e.push({ 'cluster.yaml': cluster }, 'The key comes from the environment');
});
test.after(async () => {
  await e.close();
});

test('an unreadable identityFile from ${VAR} is named by its variable in the error, observed.json, STATUS.md and every commit', async () => {
  const lines: string[] = [];
  const r = await e.tick({ env: { ...e.env, LLMGW_KEY: keyPath }, log: (l) => void lines.push(l) });
  assert.is(r.configInvalid, false, lines.join('\n'));
  assert.ok(r.commit, 'the tick committed what it saw');
  const observed = await readFile(join(e.workdir, '.llmgw/observed.json'), 'utf8');
  const status = await readFile(join(e.workdir, 'STATUS.md'), 'utf8');
  // The failure is there, in one clear line naming the variable.
  assert.match(observed, /cannot (read|use) ssh\.identityFile \(\$\{LLMGW_KEY\}\)/);
  assert.match(status, /gpu-a01 \(auth\)/);
  const history = await git(e.world.remote, ['log', '-p', '--all', '--format=%H %an %s%n%b']);
  for (const [where, text] of [
    ["the tick's log", lines.join('\n')],
    ['observed.json', observed],
    ['STATUS.md', status],
    ["the remote's history", history],
  ] as const) {
    assert.not.ok(text.includes(KEY_DIR_NAME), `${where} holds the resolved key path`);
  }
});

test('a literal identityFile is still named by its path: it is cluster.yaml text anyone can read', async () => {
  const { createSshTransport } = await import('../../src/gather/ssh-transport.js');
  const t = createSshTransport(
    {
      user: 'u',
      identityFile: '/nonexistent/llmgw-key',
      knownHosts: e.world.sim.knownHostsPath,
      port: 22,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      concurrency: 1,
    },
    { env: {} },
  );
  try {
    const host = e.world.sim.hosts[0]!;
    const out = await t.run({ name: host.name, host: host.host, port: host.port }, 'true', '').then(
      () => 'no error',
      (err: unknown) => (err as Error).message,
    );
    assert.match(out, /cannot read identityFile \/nonexistent\/llmgw-key \(ENOENT\)/);
  } finally {
    await t.close();
  }
});

test.run();
