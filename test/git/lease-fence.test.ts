// The lease's epoch and its clock rules (docs/safety.md#fencing, #clocks).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { heldFence, releaseLease, takeLease, withLease, LEASE_REF } from '../../src/git/lease.js';
import { at, sandbox, T0, TTL, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

const leaseBody = () => JSON.parse(sb.git(sb.remote, 'log', '-1', '--format=%B', LEASE_REF)) as { epoch: number; expiresAt: string };
const instance = (name: string) => openConfigRepo({ dir: join(sb.root, name), remote: sb.remote, branch: 'main', env: sb.env });

test('the epoch grows by one at every change of holder; a renewal by the same holder keeps it', async () => {
  const a = await instance('a');
  const b = await instance('b');
  assert.is((await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 })).epoch, 1);
  assert.is((await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(60_000) })).epoch, 1, 'renewal');
  assert.is((await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(TTL + 120_000) })).epoch, 2, 'b took over');
  assert.is((await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(3 * TTL) })).epoch, 3, 'a took it back');
  assert.is(leaseBody().epoch, 3);
});

test('a lease ref created afresh (deleted, a new remote) starts above the highest epoch state.json records', async () => {
  const b = await instance('b');
  assert.is((await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: T0, floorEpoch: 41 })).epoch, 42);
});

test('a lease ref deleted by a release never takes the epoch back for the process that saw it', async () => {
  const a = await instance('a');
  const first = await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 });
  await releaseLease(a, { holder: 'a:1', now: at(1000) });
  assert.is(sb.git(sb.remote, 'for-each-ref', LEASE_REF), '', 'the release deleted the ref');
  assert.is((await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(2000) })).epoch, first.epoch + 1);
});

test("withLease starts above the checkout's state.json leaseEpoch, and the tick reads the held lease as requests carry it", async () => {
  const a = await instance('a');
  mkdirSync(join(a.dir, '.llmgw'), { recursive: true });
  writeFileSync(join(a.dir, '.llmgw', 'state.json'), JSON.stringify({ version: 1, leaseEpoch: 17 }));
  const leased = await withLease(a, { holder: 'a:1', now: () => T0 }, (lease) => Promise.resolve({ epoch: lease.epoch(), fence: heldFence(a) }));
  assert.equal(leased, { held: true, value: { epoch: 18, fence: { epoch: 18, holder: 'a:1' } } });
  assert.is(heldFence(a), undefined, 'let go: no lease to carry');
});

test('a lease written by a clock more than 5 minutes ahead counts as written now (with a warning): it lasts its TTL from now, not an hour longer', async () => {
  const a = await instance('a');
  const b = await instance('b');
  // a's clock is an hour ahead: its lease says it runs out at T0+70m.
  await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(3_600_000) });
  const warnings: string[] = [];
  const early = await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(60_000), warn: (m) => warnings.push(m) });
  assert.is(early.held, false, 'within its TTL from now');
  assert.is(warnings.length, 1);
  assert.match(warnings[0] ?? '', /in the future of this clock/);
  // Counted from b's first sight of it (T0+1m): free at T0+11m on b's clock, not at T0+70m.
  const later = await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(11 * 60_000 + 1000), warn: () => undefined });
  assert.is(later.held, true, 'taken a TTL after b first saw it');
  assert.is(later.epoch, 2);
});

test('a renewal by a clock stepped back an hour never moves the expiry backwards', async () => {
  const a = await instance('a');
  await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 });
  const back = await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(-3_600_000) });
  assert.is(back.expiresAt, '2026-11-29T08:10:00.000Z');
  assert.is(leaseBody().expiresAt, '2026-11-29T08:10:00.000Z');
});

test.run();
