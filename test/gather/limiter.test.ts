// `ssh.concurrency` is the number of SSH sessions in flight, whatever the fleet
// size: first on the limiter itself, step by step, then end to end through the
// SSH transport against a simulated fleet, counted where the commands run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLimiter } from '../../src/gather/limiter.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { startSimFleet, type ExecHandler } from '../../src/sim/fleet.js';
import { emptyState } from '../../src/types/state.js';
import { cannedHandler, simConfig, simSshConfig, tempDir } from './sim-helpers.js';

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

test('createLimiter(2) runs two tasks at once, the rest wait and start in order as slots free', async () => {
  const limit = createLimiter(2);
  const started: number[] = [];
  const finish: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const results = Array.from({ length: 5 }, (_, i) =>
    limit(async () => {
      started.push(i);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((r) => (finish[i] = r));
      inFlight -= 1;
      return i * 10;
    }),
  );
  await settle();
  assert.equal(started, [0, 1]);
  finish[1]!();
  await settle();
  assert.equal(started, [0, 1, 2], 'a freed slot goes to the first waiting task');
  finish[0]!();
  await settle();
  assert.equal(started, [0, 1, 2, 3]);
  finish[2]!();
  finish[3]!();
  await settle();
  assert.equal(started, [0, 1, 2, 3, 4]);
  finish[4]!();
  assert.equal(await Promise.all(results), [0, 10, 20, 30, 40]);
  assert.is(most, 2, 'never more than the limit in flight, and the limit reached');
});

test('a task that throws frees its slot: the next waiting task runs', async () => {
  const limit = createLimiter(1);
  const failing = limit(async () => {
    throw new Error('boom');
  });
  const next = limit(async () => 'ran');
  let caught = '';
  await failing.catch((e: unknown) => (caught = (e as Error).message));
  assert.is(caught, 'boom');
  assert.is(await next, 'ran');
});

test('a limit below one, or fractional, still lets tasks through one at a time', async () => {
  for (const n of [0, -3, 0.5, 1.9]) {
    const limit = createLimiter(n);
    let inFlight = 0;
    let most = 0;
    const task = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await settle();
      inFlight -= 1;
    };
    await Promise.all([limit(task), limit(task), limit(task)]);
    assert.is(most, 1, `createLimiter(${n})`);
  }
});

test('ssh.concurrency bounds the SSH sessions in flight during a gather: 9 nodes, concurrency 3, never more than 3 at once', async () => {
  const concurrency = 3;
  let active = 0;
  let most = 0;
  let waiting: (() => void)[] = [];
  // Each command is held until `concurrency` are running at once, then a little
  // longer so a session over the limit, if the transport let one through, is
  // counted before they all answer. The 5 s fallback only keeps a broken limiter
  // from hanging the file.
  const handler: ExecHandler = async (ctx) => {
    active += 1;
    most = Math.max(most, active);
    await new Promise<void>((resolve) => {
      const fallback = setTimeout(resolve, 5000);
      waiting.push(() => {
        clearTimeout(fallback);
        resolve();
      });
      if (active >= concurrency) {
        const batch = waiting;
        waiting = [];
        setTimeout(() => batch.forEach((go) => go()), 400);
      }
    });
    active -= 1;
    return cannedHandler(ctx);
  };
  const tmp = tempDir('limiter');
  const fleet = await startSimFleet({ dir: tmp.dir, handler, hosts: Array.from({ length: 9 }, (_, i) => ({ name: `n${i}` })) });
  const ssh = simSshConfig(fleet, { concurrency, commandTimeoutMs: 10_000 });
  const transport = createSshTransport(ssh);
  try {
    const snap = await gatherSnapshot(simConfig(fleet, ssh), { transport, previous: null, state: emptyState(), now: () => new Date() });
    assert.is(snap.nodes.filter((n) => n.reachable).length, 9);
    assert.is(most, concurrency);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
