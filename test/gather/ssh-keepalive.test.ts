import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimFleet } from '../../src/sim/fleet.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import { cannedHandler, simConfig, simSshConfig, tempDir } from './sim-helpers.js';
import { defined } from '../helpers/defined.js';

test('with keepAlive a second gather opens no new connection, and dropped ones are re-opened transparently', async () => {
  const tmp = tempDir('keepalive');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })) });
  const ssh = simSshConfig(fleet);
  const config = simConfig(fleet, ssh);
  const transport = createSshTransport(ssh, { keepAlive: true });
  const gather = () => gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date() });
  const reachable = (s: Awaited<ReturnType<typeof gather>>) => s.nodes.filter((n) => n.reachable).length;
  try {
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 5);
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 5, 'the second gather reused every connection');

    // A host that rebooted between ticks: the client has seen the close.
    fleet.dropConnections('a');
    await new Promise((r) => setTimeout(r, 50));
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 6);

    // Dropped just as the call starts, before the client has noticed: retried on a fresh connection.
    fleet.dropConnections();
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 11);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('without keepAlive every call opens its own connection and leaves none open', async () => {
  const tmp = tempDir('nokeep');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }] });
  const transport = createSshTransport(simSshConfig(fleet));
  const target = { name: 'a', host: defined(fleet.hosts[0]).host, port: defined(fleet.hosts[0]).port };
  try {
    await transport.run(target, 'llmgw agent report', '{}');
    await transport.run(target, 'llmgw agent report', '{}');
    assert.is(fleet.connectionCount(), 2);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('ssh.keepOpen bounds the kept connections: past it the least recently used closes, and is opened again when next needed', async () => {
  const tmp = tempDir('keepopen');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: ['a', 'b', 'c'].map((name) => ({ name })) });
  const transport = createSshTransport({ ...simSshConfig(fleet), keepOpen: 2 }, { keepAlive: true });
  const target = (i: number) => ({ name: defined(fleet.hosts[i]).name, host: defined(fleet.hosts[i]).host, port: defined(fleet.hosts[i]).port });
  const call = (i: number) => transport.run(target(i), 'llmgw agent report', '{}');
  try {
    await call(0);
    await call(1);
    await call(0); // a is now the most recently used, b the least
    assert.is(fleet.connectionCount(), 2);
    await call(2); // a third kept connection: b's closes
    assert.is(fleet.connectionCount(), 3);
    await call(0);
    await call(2);
    assert.is(fleet.connectionCount(), 3, 'a and c are still kept');
    await call(1);
    assert.is(fleet.connectionCount(), 4, 'b was closed, so it is opened again (and a, now the least recent, goes)');
    await call(2);
    assert.is(fleet.connectionCount(), 4);
    await call(0);
    assert.is(fleet.connectionCount(), 5);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
