import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { existsSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SshError, type SshErrorKind } from '../../src/errors.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { callJson } from '../../src/gather/call.js';
import { generateSimKey } from '../../src/sim/keys.js';
import { startSimFleet, type SimFleet } from '../../src/sim/fleet.js';
import type { HostTarget } from '../../src/types/transport.js';
import { cannedHandler, simSshConfig, tempDir } from './sim-helpers.js';

const t = suite('ssh transport against a simulated fleet');
const tmp = tempDir('transport');
let fleet: SimFleet;
const target = (name: string): HostTarget => {
  const h = fleet.hosts.find((x) => x.name === name)!;
  return { name, host: h.host, port: h.port };
};

async function failure(p: Promise<unknown>): Promise<SshError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, SshError);
    return err as SshError;
  }
  throw new Error('expected a rejection');
}

t.before(async () => {
  fleet = await startSimFleet({
    dir: tmp.dir,
    handler: cannedHandler,
    slowMs: 1500,
    hosts: [
      { name: 'ok' },
      { name: 'refuse', fault: 'refuse' },
      { name: 'hang', fault: 'hang' },
      { name: 'slow', fault: 'slow' },
      { name: 'garbage', fault: 'garbage' },
      { name: 'exit', fault: 'exit' },
      { name: 'wrong', fault: 'wrong-hostkey' },
    ],
  });
});
t.after(async () => {
  await fleet.close();
  tmp.remove();
});

t('a healthy host runs the command with the request on stdin and returns stdout', async () => {
  const tr = createSshTransport(simSshConfig(fleet));
  try {
    const out = await tr.run(target('ok'), 'llmgw agent report', '{"version":1}\n');
    assert.is(JSON.parse(out).gpus[0].uuid, 'GPU-ok');
  } finally {
    await tr.close();
  }
});

const kinds: [string, SshErrorKind, RegExp][] = [
  ['refuse', 'refused', /^refuse \(127\.0\.0\.3:\d+\): connection refused$/],
  ['hang', 'timeout', /no SSH handshake within 1\.5s \(connectTimeout\)/],
  ['slow', 'timeout', /`llmgw agent report` gave no reply within 0\.8s \(commandTimeout\)/],
  ['exit', 'command-failed', /`llmgw agent report` exited with code 3: sim: exit failed on purpose$/],
  ['wrong', 'host-key-changed', /HOST KEY CHANGED: the host offers ssh-ed25519 SHA256:\S+, which is not the key in .*known_hosts:7/],
];
for (const [host, kind, message] of kinds) {
  t(`a host that does "${host}" fails with kind ${kind} and says so`, async () => {
    const tr = createSshTransport(simSshConfig(fleet, { connectTimeoutMs: 1500, commandTimeoutMs: 800 }));
    try {
      const err = await failure(tr.run(target(host), 'llmgw agent report', '{}'));
      assert.is(err.kind, kind);
      assert.is(err.host, host);
      assert.match(err.message, message);
      if (kind === 'command-failed') {
        assert.is(err.remoteExitCode, 3);
        assert.is(err.stderr, `sim: exit failed on purpose`);
      }
    } finally {
      await tr.close();
    }
  });
}

t('a garbage reply is a bad-reply error naming what came back, never a throw of anything else', async () => {
  const tr = createSshTransport(simSshConfig(fleet));
  try {
    const err = await failure(callJson(tr, target('garbage'), 'llmgw agent report', { version: 1 }, 'agent-report'));
    assert.is(err.kind, 'bad-reply');
    assert.match(err.message, /gave a reply that is not JSON: "Welcome to gpu-node!/);
  } finally {
    await tr.close();
  }
});

t('a host missing from known_hosts is host-key-unknown, distinct from a changed key', async () => {
  const kh = join(tmp.dir, 'empty_known_hosts');
  writeFileSync(kh, '# nobody\n');
  const tr = createSshTransport(simSshConfig(fleet, { knownHosts: kh }));
  try {
    const err = await failure(tr.run(target('ok'), 'llmgw agent report', '{}'));
    assert.is(err.kind, 'host-key-unknown');
    assert.match(err.message, /host key unknown: \[127\.0\.0\.2\]:\d+ is not in .*empty_known_hosts \(the host offers ssh-ed25519 SHA256:/);
  } finally {
    await tr.close();
  }
});

t('a known_hosts that cannot be read accepts no key', async () => {
  const tr = createSshTransport(simSshConfig(fleet, { knownHosts: tmp.dir }));
  try {
    const err = await failure(tr.run(target('ok'), 'x', ''));
    assert.is(err.kind, 'host-key-unknown');
    assert.match(err.message, /cannot read known_hosts .* \(EISDIR\)$/);
  } finally {
    await tr.close();
  }
});

t('a key the host does not accept is auth-failed', async () => {
  const other = join(tmp.dir, 'other_key');
  writeFileSync(other, generateSimKey('stranger').private, { mode: 0o600 });
  const tr = createSshTransport(simSshConfig(fleet, { identityFile: other }));
  try {
    const err = await failure(tr.run(target('ok'), 'x', ''));
    assert.is(err.kind, 'auth-failed');
    assert.match(err.message, /^ok \(127\.0\.0\.2:\d+\): authentication failed/);
  } finally {
    await tr.close();
  }
});

t('a missing known_hosts file says the file is missing (ENOENT), not that the host is not in it', async () => {
  const tr = createSshTransport(simSshConfig(fleet, { knownHosts: join(tmp.dir, 'no_such_known_hosts') }));
  try {
    const err = await failure(tr.run(target('ok'), 'x', ''));
    assert.is(err.kind, 'host-key-unknown');
    assert.match(err.message, /host key unknown: the known_hosts file \S+no_such_known_hosts is missing \(ENOENT\), so no host is known/);
    assert.not.match(err.message, /is not in/);
  } finally {
    await tr.close();
  }
});

t('a wrong key names the user it tried to be and the key it tried (its file and fingerprint)', async () => {
  const other = join(tmp.dir, 'stranger_key');
  writeFileSync(other, generateSimKey('stranger-2').private, { mode: 0o600 });
  const tr = createSshTransport(simSshConfig(fleet, { identityFile: other }));
  try {
    const err = await failure(tr.run(target('ok'), 'x', ''));
    assert.is(err.kind, 'auth-failed');
    const user = fleet.user.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(
      err.message,
      new RegExp(`: authentication failed as user ${user} with identityFile \\S+stranger_key \\(ssh-ed25519 SHA256:[A-Za-z0-9+/]+\\) \\(`),
    );
  } finally {
    await tr.close();
  }
});

t('a missing key file says ENOENT and its path, read once before any connection: a host whose sshd is down is not contacted, so not blamed', async () => {
  const tr = createSshTransport(simSshConfig(fleet, { identityFile: join(tmp.dir, 'no_such_key') }));
  const before = fleet.connectionCount();
  try {
    const [down, up] = await Promise.all([failure(tr.run(target('refuse'), 'x', '')), failure(tr.run(target('ok'), 'x', ''))]);
    for (const err of [down, up]) {
      assert.is(err.kind, 'auth-failed');
      assert.match(err.message, /: not contacted: cannot read identityFile \S+no_such_key \(ENOENT\)$/);
    }
    assert.is(fleet.connectionCount(), before, 'no connection was opened');
  } finally {
    await tr.close();
  }
});

t('no identity file and no ssh-agent is auth-failed without connecting', async () => {
  const tr = createSshTransport(simSshConfig(fleet, { identityFile: undefined }), { env: {} });
  const before = fleet.connectionCount();
  try {
    const err = await failure(tr.run(target('ok'), 'x', ''));
    assert.is(err.kind, 'auth-failed');
    assert.match(err.message, /no ssh\.identityFile in cluster\.yaml and no ssh-agent \(SSH_AUTH_SOCK is not set\)/);
    assert.is(fleet.connectionCount(), before);
  } finally {
    await tr.close();
  }
});

t('an encrypted key without LLMGW_SSH_PASSPHRASE says so, and the passphrase never appears in a message', async () => {
  const { default: ssh2 } = await import('ssh2');
  const enc = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: 'hunter2-secret', cipher: 'aes256-ctr', rounds: 2 });
  const file = join(tmp.dir, 'encrypted_key');
  writeFileSync(file, enc.private, { mode: 0o600 });
  const none = createSshTransport(simSshConfig(fleet, { identityFile: file }), { env: {} });
  const wrong = createSshTransport(simSshConfig(fleet, { identityFile: file }), { env: { LLMGW_SSH_PASSPHRASE: 'hunter3-secret' } });
  try {
    const e1 = await failure(none.run(target('ok'), 'x', ''));
    assert.is(e1.kind, 'auth-failed');
    assert.match(e1.message, /needs LLMGW_SSH_PASSPHRASE/);
    const e2 = await failure(wrong.run(target('ok'), 'x', ''));
    assert.is(e2.kind, 'auth-failed');
    assert.not.match(e2.message, /hunter/);
  } finally {
    await none.close();
    await wrong.close();
  }
});

t('without an identityFile, the key is taken from the ssh-agent at SSH_AUTH_SOCK', async () => {
  const sock = join(tmp.dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 20));
    const added = spawnSync('ssh-add', [fleet.identityFile], { env: { ...process.env, SSH_AUTH_SOCK: sock }, encoding: 'utf8' });
    assert.is(added.status, 0, added.stderr);
    const tr = createSshTransport(simSshConfig(fleet, { identityFile: undefined }), { env: { SSH_AUTH_SOCK: sock } });
    try {
      assert.is(JSON.parse(await tr.run(target('ok'), 'llmgw agent report', '{}')).version, 1);
    } finally {
      await tr.close();
    }
  } finally {
    agent.kill();
  }
});

t('a host that closes the TCP connection at once, or does not resolve, is unreachable', async () => {
  const closer: Server = createServer((s) => s.destroy());
  await new Promise<void>((r) => closer.listen(0, '127.0.9.9', () => r()));
  const port = (closer.address() as { port: number }).port;
  const tr = createSshTransport(simSshConfig(fleet));
  try {
    const e1 = await failure(tr.run({ name: 'closer', host: '127.0.9.9', port }, 'x', ''));
    assert.is(e1.kind, 'unreachable');
    const e2 = await failure(tr.run({ name: 'nxdomain', host: 'no-such-host.invalid', port: 22 }, 'x', ''));
    assert.is(e2.kind, 'unreachable');
    assert.match(e2.message, /^nxdomain \(no-such-host\.invalid:22\): connect ENOTFOUND$/);
  } finally {
    await tr.close();
    closer.close();
  }
});

t.run();
