import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { startDaemon } from '../../src/daemon/run-daemon.js';
import { sandbox, type Sandbox } from '../git/fixtures.js';

const NEVER = '0 0 1 1 *';
const TTL = 10 * 60_000;

/** Polls with a generous bound: the CI machine is loaded, and the conditions are events, not times. */
async function until(cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

function clock(start = Date.parse('2026-11-29T08:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

async function daemon(name: string, now: () => Date) {
  const opened = await openConfigRepo({ dir: join(sb.root, name), remote: sb.remote, branch: 'main', env: sb.env });
  // Counts the lease reads that finished: a standby's tick is over once its read is (it holds nothing, so it writes nothing).
  const reads = { done: 0 };
  const repo: typeof opened = {
    ...opened,
    readRemoteRef: (...args) => opened.readRemoteRef(...args).finally(() => void (reads.done += 1)),
  };
  const ticks: string[] = [];
  const lines: string[] = [];
  const expiries: (string | undefined)[] = [];
  const d = startDaemon({
    repo,
    schedule: NEVER,
    holder: name,
    leaseTtlMs: TTL,
    now,
    tick: async (reason, leaseExpiresAt) => {
      ticks.push(reason);
      expiries.push(leaseExpiresAt?.toISOString());
    },
    log: (l) => lines.push(l),
  });
  return { d, ticks, lines, expiries, reads };
}

/** Instance a ticks and holds the lease; instance b has started and stands by. */
async function holderAndStandby() {
  const c = clock();
  const a = await daemon('a', c.now);
  await until(() => a.ticks.length === 1);
  const b = await daemon('b', c.now);
  await until(() => b.lines.length === 1);
  assert.equal(b.ticks, []);
  return { c, a, b };
}

test('of two instances on one remote only the lease holder ticks; the other stands by, then takes over after expiry', async () => {
  const { c, a, b } = await holderAndStandby();
  assert.equal(b.lines, ['standing by: the lease is held by a until 2026-11-29T08:10:00.000Z']);
  const readsBefore = b.reads.done;
  b.d.trigger('schedule');
  await until(() => b.reads.done > readsBefore);
  await new Promise((r) => setImmediate(r));
  assert.equal(b.ticks, []);
  assert.is(b.lines.length, 1, 'standing by is said once, not every tick');
  // a goes away without renewing; once its lease has run out b takes over.
  await a.d.stop();
  c.advance(TTL + 1000);
  b.d.trigger('schedule');
  await until(() => b.ticks.length === 1);
  assert.equal(b.ticks, ['schedule']);
  assert.is(b.lines[1], 'holding the lease as b until 2026-11-29T08:20:01.000Z');
  await b.d.stop();
  assert.equal(a.ticks, ['start']);
  // Each tick is told when its lease runs out, so it stops applying before then.
  assert.equal([a.expiries, b.expiries], [['2026-11-29T08:10:00.000Z'], ['2026-11-29T08:20:01.000Z']]);
});

test('a holder that stops lets the lease go, so a standby takes over at its next tick without waiting out the TTL', async () => {
  const { c, a, b } = await holderAndStandby();
  await a.d.stop();
  c.advance(1000);
  b.d.trigger('schedule');
  await until(() => b.ticks.length === 1);
  await b.d.stop();
  assert.equal(b.ticks, ['schedule']);
  assert.is(b.lines[1], 'holding the lease as b until 2026-11-29T08:10:01.000Z');
});

test('a holder that cannot renew its lease does not tick, and says why in one line', async () => {
  const c = clock();
  const a = await daemon('a', c.now);
  await until(() => a.ticks.length === 1);
  renameSync(sb.remote, sb.remote + '.gone');
  a.d.trigger('schedule');
  await until(() => a.lines.some((l) => l.startsWith('tick (schedule) failed')));
  await a.d.stop();
  assert.equal(a.ticks, ['start']);
  const failed = a.lines.find((l) => l.startsWith('tick (schedule) failed'))!;
  assert.match(failed, /^tick \(schedule\) failed: reading the lease from origin failed: /);
  assert.not.match(failed, /\n/);
});

test('without a remote the single instance ticks without any lease talk', async () => {
  const repo = await openConfigRepo({ dir: join(sb.root, 'seed'), env: sb.env });
  const ticks: string[] = [];
  const lines: string[] = [];
  const d = startDaemon({
    repo,
    schedule: NEVER,
    holder: 'solo',
    leaseTtlMs: TTL,
    now: () => new Date(),
    tick: async (r, expiry) => void ticks.push(`${r} ${expiry === undefined ? 'no deadline' : 'deadline'}`),
    log: (l) => lines.push(l),
  });
  await until(() => ticks.length === 1);
  await d.stop();
  assert.equal(lines, []);
  assert.equal(ticks, ['start no deadline']);
});

test('a job between ticks runs under the lease the holder kept (its epoch), renewed once past half its TTL; a standby runs none', async () => {
  const { c, a, b } = await holderAndStandby();
  const seen: string[] = [];
  const job = async (lease: { holder: string; epoch(): number; expiresAt(): Date | undefined }) =>
    void seen.push(`${lease.holder} epoch ${lease.epoch()} until ${lease.expiresAt()?.toISOString()}`);
  assert.is(await b.d.leased(job), false, 'a standby acts on nothing');
  assert.is(await a.d.leased(job), true);
  assert.equal(seen, ['a epoch 1 until 2026-11-29T08:10:00.000Z'], 'the kept lease, as the start tick took it');
  c.advance(TTL / 2 + 1000);
  assert.is(await a.d.leased(job), true);
  assert.equal(seen[1], 'a epoch 1 until 2026-11-29T08:15:01.000Z', 'renewed (same holder, same epoch) before acting');
  await a.d.stop();
  await b.d.stop();
});

test.run();
