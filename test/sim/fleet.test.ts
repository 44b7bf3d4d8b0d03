import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { simAddress, startSimFleet } from '../../src/sim/fleet.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { type SshError } from '../../src/errors.js';
import { cannedHandler, simSshConfig, tempDir } from '../gather/sim-helpers.js';
import { defined } from '../helpers/defined.js';

test('default addresses are distinct loopback addresses for a fleet of any size', () => {
  const all = Array.from({ length: 1000 }, (_, i) => simAddress(i));
  assert.is(new Set(all).size, 1000);
  assert.is(all[0], '127.0.0.2');
  assert.is(all[249], '127.0.0.251');
  assert.is(all[250], '127.0.1.2');
  for (const a of all) assert.match(a, /^127\.0\.\d+\.(\d+)$/);
  assert.ok(all.every((a) => Number(a.split('.')[3]) >= 2 && Number(a.split('.')[3]) <= 251));
});

test('each host gets its own key in known_hosts as [addr]:port, and the client key is private', async () => {
  const tmp = tempDir('simkh');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }, { name: 'b', address: '127.0.5.7' }] });
  try {
    const lines = readFileSync(fleet.knownHostsPath, 'utf8').trim().split('\n');
    assert.is(lines.length, 2);
    assert.match(defined(lines[0]), new RegExp(`^\\[127\\.0\\.0\\.2\\]:${defined(fleet.hosts[0]).port} ssh-ed25519 AAAA`));
    assert.match(defined(lines[1]), new RegExp(`^\\[127\\.0\\.5\\.7\\]:${defined(fleet.hosts[1]).port} ssh-ed25519 AAAA`));
    assert.is.not(defined(lines[0]).split(' ')[2], defined(lines[1]).split(' ')[2]);
    assert.is(statSync(fleet.identityFile).mode & 0o777, 0o600);
  } finally {
    await fleet.close();
    tmp.remove();
  }
});

test('a fault set at run time takes effect, and clearing it restores the host on the same port', async () => {
  const tmp = tempDir('simfault');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }] });
  const transport = createSshTransport(simSshConfig(fleet, { connectTimeoutMs: 1000 }));
  const target = { name: 'a', host: defined(fleet.hosts[0]).host, port: defined(fleet.hosts[0]).port };
  const kind = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (e as SshError).kind,
    );
  try {
    await fleet.setFaultAsync('a', 'refuse');
    assert.is(await kind(transport.run(target, 'x', '')), 'refused');
    await fleet.setFaultAsync('a', 'wrong-hostkey');
    assert.is(await kind(transport.run(target, 'x', '')), 'host-key-changed');
    await fleet.setFaultAsync('a', 'exit');
    assert.is(await kind(transport.run(target, 'x', '')), 'command-failed');
    await fleet.setFaultAsync('a', null);
    assert.is(await kind(transport.run(target, 'x', '')), 'ok');
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('the handler gets the host name, the full command line and stdin', async () => {
  const tmp = tempDir('simhandler');
  const seen: unknown[] = [];
  const fleet = await startSimFleet({
    dir: tmp.dir,
    hosts: [{ name: 'gpu-1' }],
    handler: async (ctx) => (seen.push(ctx), { stdout: 'out', stderr: '', code: 0 }),
  });
  const transport = createSshTransport(simSshConfig(fleet));
  try {
    const out = await transport.run(
      { name: 'gpu-1', host: defined(fleet.hosts[0]).host, port: defined(fleet.hosts[0]).port },
      'env A=1 llmgw agent report',
      '{"v":1}\n',
    );
    assert.is(out, 'out');
    assert.equal(seen, [{ host: 'gpu-1', command: 'env A=1 llmgw agent report', stdin: '{"v":1}\n' }]);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
