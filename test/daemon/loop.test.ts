import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLoop, type TickReason } from '../../src/daemon/loop.js';
import { UsageError } from '../../src/errors.js';

// Once a year at midnight on Jan 1st: the schedule stays out of the way, only our triggers count.
const NEVER = '0 0 1 1 *';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fake tick that records its reasons and can be held open. */
function fakeTick() {
  const reasons: TickReason[] = [];
  let active = 0;
  let maxActive = 0;
  const gates: (() => void)[] = [];
  let holding = false;
  return {
    reasons,
    maxActive: () => maxActive,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const g of gates.splice(0)) g();
    },
    tick: async (reason: TickReason) => {
      reasons.push(reason);
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        if (holding) await new Promise<void>((r) => gates.push(r));
        else await sleep(5);
      } finally {
        active--;
      }
    },
  };
}

test('a bad cron expression is a UsageError before anything starts', () => {
  assert.throws(
    () => startLoop({ schedule: 'every five minutes', tick: async () => undefined, log: () => undefined }),
    (e: unknown) => e instanceof UsageError && /--schedule 'every five minutes' is not a cron expression/.test((e as Error).message),
  );
});

test('triggers during a tick coalesce into exactly one follow-up tick, never overlapping', async () => {
  const t = fakeTick();
  t.hold();
  const loop = startLoop({ schedule: NEVER, tick: t.tick, log: () => undefined });
  await sleep(10);
  assert.equal(t.reasons, ['start']);
  loop.trigger('schedule');
  loop.trigger('watch');
  loop.trigger('schedule');
  await sleep(10);
  assert.equal(t.reasons, ['start'], 'nothing runs beside the tick in flight');
  t.release();
  await sleep(10);
  t.release();
  await sleep(30);
  assert.equal(t.reasons, ['start', 'schedule']);
  assert.is(t.maxActive(), 1);
  await loop.stop();
});

test('the cron schedule triggers ticks (node-cron seconds field)', async () => {
  const t = fakeTick();
  const loop = startLoop({ schedule: '* * * * * *', tickAtStart: false, tick: t.tick, log: () => undefined });
  await sleep(2300);
  await loop.stop();
  assert.ok(t.reasons.length >= 1 && t.reasons.length <= 3, `ticked ${t.reasons.length} times`);
  assert.ok(t.reasons.every((r) => r === 'schedule'));
});

test('a failing tick is logged on one line and the loop goes on', async () => {
  const lines: string[] = [];
  let calls = 0;
  const loop = startLoop({
    schedule: NEVER,
    tick: async () => {
      calls++;
      if (calls === 1) throw new Error('git fetch failed: no route\n    at stack frame');
    },
    log: (l) => lines.push(l),
  });
  await sleep(20);
  loop.trigger('schedule');
  await sleep(20);
  await loop.stop();
  assert.equal(lines, ['tick (start) failed: git fetch failed: no route']);
  assert.is(calls, 2);
});

test('stop waits for the tick in flight and no tick starts after it', async () => {
  const t = fakeTick();
  t.hold();
  const loop = startLoop({ schedule: NEVER, tick: t.tick, log: () => undefined });
  await sleep(10);
  loop.trigger('schedule');
  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await sleep(20);
  assert.is(stopped, false, 'still waiting for the tick');
  t.release();
  await stopping;
  loop.trigger('schedule');
  await sleep(20);
  assert.equal(t.reasons, ['start'], 'the pending follow-up was dropped by stop');
});

test('a write to a watched file triggers one debounced tick; a generated file does not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-loop-'));
  const models = join(dir, 'models.yaml');
  const status = join(dir, 'STATUS.md');
  writeFileSync(models, 'models: []\n');
  writeFileSync(status, 'x\n');
  const t = fakeTick();
  const loop = startLoop({ schedule: NEVER, tickAtStart: false, watchFiles: [models, status], debounceMs: 100, tick: t.tick, log: () => undefined });
  try {
    await loop.ready;
    writeFileSync(status, 'y\n');
    await sleep(300);
    assert.equal(t.reasons, [], 'STATUS.md is llmgw output');
    writeFileSync(models, 'models: [] # 1\n');
    await sleep(20);
    writeFileSync(models, 'models: [] # 2\n');
    await sleep(400);
    assert.equal(t.reasons, ['watch'], 'two quick writes, one tick');
    // git replaces files rather than writing in place: still watched afterwards.
    writeFileSync(join(dir, 'tmp'), 'models: [] # 3\n');
    renameSync(join(dir, 'tmp'), models);
    await sleep(400);
    writeFileSync(models, 'models: [] # 4\n');
    await sleep(400);
    assert.equal(t.reasons, ['watch', 'watch', 'watch']);
  } finally {
    await loop.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an exclusive job runs only when nothing does, counts as a run, and triggers during it make one tick after it', async () => {
  const t = fakeTick();
  t.hold();
  const loop = startLoop({ schedule: NEVER, tick: t.tick, log: () => undefined });
  await sleep(10);
  assert.is(loop.busy(), true);
  assert.is(await loop.exclusive(async () => assert.unreachable('ran beside a tick')), false);
  t.release();
  while (loop.busy()) await sleep(5);
  const before = loop.runs();
  let release: () => void = () => undefined;
  const job = loop.exclusive(() => new Promise<void>((r) => (release = r)));
  assert.is(loop.busy(), true);
  assert.is(loop.runs(), before + 1);
  loop.trigger('poll');
  loop.trigger('webhook');
  assert.equal(t.reasons, ['start'], 'no tick beside the job');
  release();
  assert.is(await job, true);
  while (t.reasons.length < 2) await sleep(5);
  t.release();
  await loop.stop();
  assert.equal(t.reasons, ['start', 'poll']);
  assert.is(t.maxActive(), 1);
});

test('a failing exclusive job rejects its caller and frees the loop', async () => {
  const loop = startLoop({ schedule: NEVER, tickAtStart: false, tick: async () => undefined, log: () => undefined });
  let caught = '';
  await loop.exclusive(async () => Promise.reject(new Error('boom'))).catch((e: unknown) => (caught = (e as Error).message));
  assert.is(caught, 'boom');
  assert.is(loop.busy(), false);
  await loop.stop();
});

test.run();
