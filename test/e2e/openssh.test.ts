// Against Debian's real OpenSSH server: the test starts its own sshd on a free
// loopback port with a temporary config, host keys and authorized key, then
// gathers from it. CI installs openssh-server; without sshd this FAILS (it is
// what proves llmgw speaks to the SSH servers fleets actually run).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { SshError } from '../../src/errors.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import type { Config, SshConfig } from '../../src/types/config.js';
import { fakeGpuEnv, writeFakeGpus } from '../../src/sim/fake-nvidia-smi.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { tempDir } from '../gather/sim-helpers.js';
import { BUNDLE } from '../helpers/node-bundle.js';
import { model, testCluster } from '../fixtures/index.js';

const SSHD = '/usr/sbin/sshd';
const ADDRESS = '127.0.0.1';
const tmp = tempDir('openssh');
let sshd: ChildProcess | null = null;
let port = 0;
let sshdLog = '';

function keygen(type: string, file: string): string {
  const r = spawnSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'llmgw-e2e', '-f', file]);
  if (r.status !== 0) throw new Error(`ssh-keygen -t ${type} failed: ${r.stderr.toString()}`);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, ADDRESS, () => r()));
  const p = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

async function waitForPort(p: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(p, ADDRESS, () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`sshd did not listen on ${ADDRESS}:${p} within ${ms} ms: ${sshdLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const NVIDIA_H100 = 'NVIDIA H100 80GB HBM3';

/**
 * The real agent as an operator installs it on a node (docs/operations.md): the
 * one-file bundle dist/llmgw-node.mjs copied alone to a directory of its own,
 * run by `node` with an env prefix and absolute paths, a fake nvidia-smi over
 * fixture GPUs, its own state directory.
 */
function agentCommand(): string {
  const bundle = join(tmp.dir, 'opt', 'llmgw-node.mjs');
  const env = { ...fakeGpuEnv(join(tmp.dir, 'gpus.csv')), LLMGW_STATE_DIR: join(tmp.dir, 'state') };
  const prefix = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `env ${prefix} ${process.execPath} ${bundle} agent`;
}

function sshConfig(knownHosts: string): SshConfig {
  return {
    user: userInfo().username,
    identityFile: join(tmp.dir, 'client'),
    knownHosts,
    port: 22,
    connectTimeoutMs: 5000,
    commandTimeoutMs: 10_000,
    concurrency: 4,
  };
}

function config(ssh: SshConfig): Config {
  return {
    cluster: testCluster({
      name: 'e2e',
      ssh,
      agent: { command: agentCommand() },
      fabrics: ['f'],
      nodes: [{ name: 'e2e-node', host: ADDRESS, port, fabric: 'f', cordon: false, storage: [{ path: join(tmp.dir, 'models'), kind: 'local' }] }],
      idleAfterMs: 1,
      lostAfterMs: 1,
    }),
    models: ['org/complete', 'org/empty', 'org/absent'].map((weights, index) => model(`m${index}`, { weights, index })),
  };
}

async function refusal(knownHosts: string): Promise<SshError> {
  const transport = createSshTransport(sshConfig(knownHosts));
  try {
    await transport.run({ name: 'e2e-node', host: ADDRESS, port }, 'true', '');
  } catch (err) {
    assert.instance(err, SshError);
    return err as SshError;
  } finally {
    await transport.close();
  }
  throw new Error('expected the connection to be refused');
}

test.before(async () => {
  assert.ok(existsSync(SSHD), `${SSHD} is missing: install Debian's openssh-server (apt-get install openssh-server); this test does not skip`);
  // sshd as root wants its privilege-separation directory; as another user it runs without.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true });
  const d = tmp.dir;
  keygen('ed25519', join(d, 'host_ed25519'));
  keygen('ecdsa', join(d, 'host_ecdsa'));
  writeFileSync(join(d, 'authorized_keys'), keygen('ed25519', join(d, 'client')) + '\n');
  mkdirSync(join(d, 'opt'));
  copyFileSync(BUNDLE, join(d, 'opt', 'llmgw-node.mjs'));
  await writeFakeGpus(join(d, 'gpus.csv'), [
    { name: NVIDIA_H100, uuid: 'GPU-e2e-0' },
    { name: NVIDIA_H100, uuid: 'GPU-e2e-1', unhealthy: 'ecc' },
  ]);
  mkdirSync(join(d, 'models/org/complete'), { recursive: true });
  mkdirSync(join(d, 'models/org/empty'), { recursive: true });
  writeFileSync(join(d, 'models/org/complete/model.safetensors'), 'weights');
  port = await freePort();
  writeFileSync(
    join(d, 'sshd_config'),
    [
      `Port ${port}`,
      `ListenAddress ${ADDRESS}`,
      `HostKey ${d}/host_ed25519`,
      `HostKey ${d}/host_ecdsa`,
      `AuthorizedKeysFile ${d}/authorized_keys`,
      `PidFile ${d}/sshd.pid`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  sshd = spawn(SSHD, ['-D', '-e', '-f', join(d, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshd.stderr!.on('data', (c) => (sshdLog = (sshdLog + c).slice(-2000)));
  await waitForPort(port, 10_000);
});

test.after(async () => {
  if (sshd && sshd.exitCode === null) {
    sshd.kill('SIGTERM');
    await new Promise((r) => sshd!.once('exit', r));
  }
  tmp.remove();
});

const line = (pubFile: string) => {
  const [type, blob] = readFileSync(join(tmp.dir, pubFile), 'utf8').trim().split(' ');
  return `[${ADDRESS}]:${port} ${type} ${blob}\n`;
};

test('gathers the report of the real agent, run from the one-file bundle, from a real OpenSSH server, its key checked against known_hosts', async () => {
  const kh = join(tmp.dir, 'known_hosts');
  writeFileSync(kh, line('host_ed25519.pub'));
  const ssh = sshConfig(kh);
  const transport = createSshTransport(ssh);
  try {
    const snap = await gatherSnapshot(config(ssh), { transport, previous: null, state: emptyState(), now: () => new Date() });
    assert.is(snap.nodes.length, 1);
    const node = snap.nodes[0];
    assert.ok(node?.reachable, JSON.stringify(node));
    const report = (node as { report: AgentReport }).report;
    assert.equal(
      report.gpus.map((g) => [g.index, g.uuid, g.name, g.healthy]),
      [
        [0, 'GPU-e2e-0', NVIDIA_H100, true],
        [1, 'GPU-e2e-1', NVIDIA_H100, false],
      ],
    );
    // A complete holding carries its sizes (docs/protocol.md): the one weights file is 7 bytes, with no config.json.
    assert.equal(report.storage, [
      {
        path: join(tmp.dir, 'models'),
        kind: 'local',
        weights: ['org/complete'],
        incomplete: ['org/empty'],
        sizes: { 'org/complete': { bytes: 7, config: null } },
      },
    ]);
    assert.equal(report.replicas, []);
  } finally {
    await transport.close();
  }
});

test('a host listed only by its ECDSA key, hashed, is offered only ECDSA and accepted', async () => {
  const kh = join(tmp.dir, 'known_hosts_ecdsa');
  writeFileSync(kh, line('host_ecdsa.pub'));
  assert.is(spawnSync('ssh-keygen', ['-H', '-f', kh]).status, 0);
  assert.match(readFileSync(kh, 'utf8'), /^\|1\|/);
  const transport = createSshTransport(sshConfig(kh));
  try {
    assert.is(await transport.run({ name: 'e2e-node', host: ADDRESS, port }, 'echo hello', ''), 'hello\n');
  } finally {
    await transport.close();
  }
});

test('an unknown host key is refused as host-key-unknown', async () => {
  const kh = join(tmp.dir, 'known_hosts_empty');
  writeFileSync(kh, '');
  const err = await refusal(kh);
  assert.is(err.kind, 'host-key-unknown');
  assert.match(err.message, new RegExp(`host key unknown: \\[127\\.0\\.0\\.1\\]:${port} is not in ${kh}`));
});

test('a changed host key is refused as host-key-changed, never accepted', async () => {
  const kh = join(tmp.dir, 'known_hosts_changed');
  keygen('ed25519', join(tmp.dir, 'impostor'));
  writeFileSync(kh, line('impostor.pub'));
  const err = await refusal(kh);
  assert.is(err.kind, 'host-key-changed');
  assert.match(err.message, /HOST KEY CHANGED: the host offers ssh-ed25519 SHA256:/);
});

test('a command that fails on the host is command-failed with its exit code and last stderr line', async () => {
  const kh = join(tmp.dir, 'known_hosts');
  const transport = createSshTransport(sshConfig(kh));
  try {
    await transport.run({ name: 'e2e-node', host: ADDRESS, port }, 'echo first >&2; echo "no GPUs here" >&2; exit 4', '');
    assert.unreachable('should have failed');
  } catch (err) {
    assert.instance(err, SshError);
    assert.is((err as SshError).kind, 'command-failed');
    assert.is((err as SshError).remoteExitCode, 4);
    assert.is((err as SshError).stderr, 'no GPUs here');
  } finally {
    await transport.close();
  }
});

test.run();
