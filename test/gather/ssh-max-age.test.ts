// A kept SSH connection is re-made once it is older than maxConnectionAge (docs/commands.md
// `run`): killing sshd leaves the process serving an open connection alive, so
// only a fresh connection shows the node cannot be reached. The age is checked
// when a command starts, never during one. The clock is the test's own.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimFleet, type ExecHandler } from '../../src/sim/fleet.js';
import { startSimBastion } from '../../src/sim/bastion.js';
import { MAX_CONNECTION_AGE_MS, createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import { cannedHandler, simConfig, simSshConfig, tempDir } from './sim-helpers.js';
import { defined } from '../helpers/defined.js';

const MIN = 60_000;

test('the default maximum age is 10 minutes', () => {
  assert.is(MAX_CONNECTION_AGE_MS, 10 * MIN);
});

test('after the maximum age the next command opens a new connection; with the sshd gone, the node is unreachable', async () => {
  const tmp = tempDir('maxage');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }, { name: 'b' }] });
  const ssh = simSshConfig(fleet);
  const config = simConfig(fleet, ssh);
  let clock = Date.parse('2026-11-29T08:00:00Z');
  const transport = createSshTransport(ssh, { keepAlive: true, now: () => clock });
  const gather = () => gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date(clock) });
  const reachable = async () => (await gather()).nodes.filter((n) => n.reachable).map((n) => n.name);
  try {
    assert.equal(await reachable(), ['a', 'b']);
    assert.is(fleet.connectionCount(), 2);
    clock += 10 * MIN - 1;
    assert.equal(await reachable(), ['a', 'b']);
    assert.is(fleet.connectionCount(), 2, 'younger than 10 minutes: kept');

    // sshd of a is killed: no new connection gets in, the open one lives on (the
    // listener stops at once; setFaultAsync would wait for open connections to end).
    fleet.setFault('a', 'refuse');
    assert.equal(await reachable(), ['a', 'b'], 'the kept connection still answers: what a dead sshd looks like without a maximum age');

    clock += 1;
    const snap = await gather();
    assert.is(fleet.connectionCount(), 3, "b's connection was re-made; a's could not be");
    assert.equal(
      snap.nodes.map((n) => [n.name, n.reachable]),
      [
        ['a', false],
        ['b', true],
      ],
    );
    const a = defined(snap.nodes.find((n) => n.name === 'a'));
    assert.is(!a.reachable && a.reason, 'refused');

    clock += MIN;
    assert.equal(await reachable(), ['b'], "b's new connection is kept");
    assert.is(fleet.connectionCount(), 3);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('a command running when the connection grows old is not cut: the next command goes to a new connection, the old one ends after it', async () => {
  const tmp = tempDir('maxage-busy');
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  let entered: () => void = () => undefined;
  const inside = new Promise<void>((r) => (entered = r));
  const handler: ExecHandler = async ({ command }) => {
    if (command === 'hold') {
      entered();
      await held;
    }
    return { stdout: `done ${command}`, code: 0 };
  };
  const fleet = await startSimFleet({ dir: tmp.dir, handler, hosts: [{ name: 'a' }] });
  const ssh = simSshConfig(fleet, { commandTimeoutMs: 60_000 });
  let clock = 0;
  const transport = createSshTransport(ssh, { keepAlive: true, now: () => clock, maxConnectionAgeMs: 1000 });
  const h = defined(fleet.hosts[0]);
  const target = { name: 'a', host: h.host, port: h.port };
  try {
    assert.is(await transport.run(target, 'first', ''), 'done first');
    const slow = transport.run(target, 'hold', '');
    await inside;
    clock = 1000;
    assert.is(await transport.run(target, 'second', ''), 'done second');
    assert.is(fleet.connectionCount(), 2, 'the second command went to a new connection');
    release();
    assert.is(await slow, 'done hold', 'the command on the old connection ran to its end');
    assert.is(await transport.run(target, 'third', ''), 'done third');
    assert.is(fleet.connectionCount(), 2, 'the new connection is the kept one');
  } finally {
    release();
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('through a bastion: past the maximum age the bastion connection is re-made too, and node connections go through the new one', async () => {
  const tmp = tempDir('maxage-bastion');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }, { name: 'b' }] });
  const bastion = await startSimBastion({ address: '127.0.8.9', knownHostsPath: fleet.knownHostsPath, identityFile: fleet.identityFile });
  const ssh = simSshConfig(fleet, { proxyJump: { user: bastion.user, host: bastion.host, port: bastion.port } });
  const config = simConfig(fleet, ssh);
  let clock = 0;
  const transport = createSshTransport(ssh, { keepAlive: true, now: () => clock });
  const gather = () => gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date(clock) });
  try {
    assert.is((await gather()).nodes.filter((n) => n.reachable).length, 2);
    assert.equal([bastion.connections(), bastion.forwards()], [1, 2]);
    clock = 10 * MIN - 1;
    await gather();
    assert.equal([bastion.connections(), bastion.forwards()], [1, 2], 'younger than 10 minutes: all kept');
    clock = 10 * MIN;
    assert.is((await gather()).nodes.filter((n) => n.reachable).length, 2);
    assert.equal([bastion.connections(), bastion.forwards()], [2, 4], 'a new bastion connection, and both nodes reached again through it');
    clock += MIN;
    await gather();
    assert.equal([bastion.connections(), bastion.forwards()], [2, 4], 'the new ones are kept');
  } finally {
    await transport.close();
    await bastion.close();
    await fleet.close();
    tmp.remove();
  }
});

test('without keepAlive nothing is kept, whatever the clock', async () => {
  const tmp = tempDir('maxage-nokeep');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }] });
  const transport = createSshTransport(simSshConfig(fleet), { now: () => 0 });
  const h = defined(fleet.hosts[0]);
  try {
    await transport.run({ name: 'a', host: h.host, port: h.port }, 'x', '');
    await transport.run({ name: 'a', host: h.host, port: h.port }, 'x', '');
    assert.is(fleet.connectionCount(), 2);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
