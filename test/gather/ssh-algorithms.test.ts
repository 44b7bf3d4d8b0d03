// No SHA-1 in SSH (docs/security.md): against real ssh2 servers on loopback,
// a host that offers only hmac-sha1, or only ssh-rsa host-key signatures, is
// refused in the handshake with one line naming it; an RSA host key still
// works through rsa-sha2-*. A user key or an agent is never asked for an
// ssh-rsa (SHA-1) signature. (OpenSSH itself: test/e2e/openssh.test.ts.)

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ssh2 from 'ssh2';
import { SshError } from '../../src/errors.js';
import { isSha1Signature, SHA1_REFUSED, withoutSha1Signatures } from '../../src/gather/ssh-algorithms.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { generateSimKey, knownHostsLine, parsedKey, type SimKeyPair } from '../../src/sim/keys.js';
import { acceptOnlyKey } from '../../src/sim/ssh-host.js';
import type { SshConfig } from '../../src/types/config.js';
import { tempDir } from './sim-helpers.js';

const tmp = tempDir('ssh-algorithms');
const clientKey = generateSimKey('client');
const identityFile = join(tmp.dir, 'id');
writeFileSync(identityFile, clientKey.private, { mode: 0o600 });
const rsaHost: SimKeyPair = (() => {
  const k = ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 });
  return { private: k.private, public: k.public };
})();
const servers: ssh2.Server[] = [];

test.after(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
  tmp.remove();
});

/** A real ssh2 server on loopback, offering only `algorithms`, answering every command with `ok`. */
async function server(hostKey: SimKeyPair, algorithms: ssh2.Algorithms): Promise<{ port: number; knownHosts: string }> {
  const s = new ssh2.Server({ hostKeys: [hostKey.private], algorithms }, (client) => {
    acceptOnlyKey(client, parsedKey(clientKey.private));
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('exec', (acceptExec) => {
          const stream = acceptExec();
          stream.on('data', () => undefined);
          stream.once('end', () => {
            stream.write('ok\n');
            stream.exit(0);
            stream.end();
          });
        });
      });
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  const knownHosts = join(tmp.dir, `known_hosts_${port}`);
  writeFileSync(knownHosts, knownHostsLine('127.0.0.1', port, hostKey) + '\n');
  return { port, knownHosts };
}

async function run(port: number, knownHosts: string): Promise<string | SshError> {
  const ssh: SshConfig = { user: 'llmgw', identityFile, knownHosts, port, connectTimeoutMs: 5000, commandTimeoutMs: 5000, concurrency: 1 };
  const transport = createSshTransport(ssh, { env: {} });
  try {
    return await transport.run({ name: 'h', host: '127.0.0.1', port }, 'echo', '');
  } catch (err) {
    if (err instanceof SshError) return err;
    throw err;
  } finally {
    await transport.close();
  }
}

test('a server that offers only hmac-sha1 is refused in the handshake, one line naming the host', async () => {
  const { port, knownHosts } = await server(generateSimKey('host'), { hmac: ['hmac-sha1'], cipher: ['aes128-ctr'] });
  const r = await run(port, knownHosts);
  assert.instance(r, SshError);
  assert.match((r as SshError).message, /^h \(127\.0\.0\.1:\d+\): SSH handshake failed \(.*MAC.*\)$/);
});

test('hmac-sha1-96 and hmac-sha1-etm are not offered either', async () => {
  const { port, knownHosts } = await server(generateSimKey('host'), { hmac: ['hmac-sha1-96', 'hmac-sha1-etm@openssh.com'], cipher: ['aes256-ctr'] });
  assert.instance(await run(port, knownHosts), SshError);
});

test('a server whose RSA host key can only sign with ssh-rsa (SHA-1) is refused', async () => {
  const { port, knownHosts } = await server(rsaHost, { serverHostKey: ['ssh-rsa'] });
  const r = await run(port, knownHosts);
  assert.instance(r, SshError);
  assert.match((r as SshError).message, /SSH handshake failed \(.*host key.*\)/i);
});

test('an RSA host key still works through rsa-sha2-256/512, and a SHA-2 MAC with a CTR cipher is taken', async () => {
  const { port, knownHosts } = await server(rsaHost, {
    serverHostKey: ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
    hmac: ['hmac-sha1', 'hmac-sha2-256'],
    cipher: ['aes128-ctr'],
  });
  assert.is(await run(port, knownHosts), 'ok\n');
});

test('an RSA user key never signs with SHA-1: ssh-rsa is an error, rsa-sha2 signs; an ed25519 key signs as before', () => {
  const rsa = withoutSha1Signatures(parsedKey(rsaHost.private));
  const data = Buffer.from('session data');
  const refused = rsa.sign(data) as unknown;
  assert.instance(refused, Error);
  assert.is((refused as Error).message, SHA1_REFUSED);
  assert.instance(rsa.sign(data, 'sha1'), Error);
  assert.ok(Buffer.isBuffer(rsa.sign(data, 'sha256')));
  assert.ok(Buffer.isBuffer(rsa.sign(data, 'sha512')));
  const ed = withoutSha1Signatures(parsedKey(clientKey.private));
  assert.ok(Buffer.isBuffer(ed.sign(data)));
  assert.equal(
    [
      ['ssh-rsa', undefined],
      ['ssh-rsa', 'sha1'],
      ['ssh-rsa', 'sha256'],
      ['ssh-dss', 'sha256'],
      ['ssh-ed25519', undefined],
      ['ecdsa-sha2-nistp256', 'sha256'],
    ].map(([t, h]) => isSha1Signature(t!, h)),
    [true, true, false, true, false, false],
  );
});

test.run();
