import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { takeLease, LEASE_REF, processHolder, withLease } from '../../src/git/lease.js';
import { at, sandbox, T0, TTL, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

async function instance(name: string) {
  return openConfigRepo({ dir: join(sb.root, name), remote: sb.remote, branch: 'main', env: sb.env });
}

test('without a remote the single instance always holds the lease', async () => {
  const repo = await openConfigRepo({ dir: join(sb.root, 'seed'), env: sb.env });
  assert.equal(await takeLease(repo, { holder: 'a:1', ttlMs: TTL, now: T0 }), {
    held: true,
    holder: 'a:1',
    expiresAt: '2026-11-29T08:10:00.000Z',
    epoch: 1,
  });
});

test('two instances on one remote: only one holds, the other stands by and sees who holds it', async () => {
  const a = await instance('a');
  const b = await instance('b');
  const main = sb.git(sb.remote, 'rev-parse', 'main');
  assert.equal(await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 }), { held: true, holder: 'a:1', expiresAt: '2026-11-29T08:10:00.000Z', epoch: 1 });
  assert.equal(await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(60_000) }), {
    held: false,
    holder: 'a:1',
    expiresAt: '2026-11-29T08:10:00.000Z',
    epoch: 1,
  });
  // The ref's commit names the holder, the expiry, the epoch and the writer's clock; the branch is untouched.
  assert.equal(JSON.parse(sb.git(sb.remote, 'log', '-1', '--format=%B', LEASE_REF)), {
    holder: 'a:1',
    expiresAt: '2026-11-29T08:10:00.000Z',
    epoch: 1,
    at: '2026-11-29T08:00:00.000Z',
  });
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%an', LEASE_REF), 'llmgw');
  assert.is(sb.git(sb.remote, 'rev-parse', 'main'), main);
});

test('the holder renews its lease, pushing the expiry forward', async () => {
  const a = await instance('a');
  await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 });
  const renewed = await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(5 * 60_000) });
  assert.equal(renewed, { held: true, holder: 'a:1', expiresAt: '2026-11-29T08:15:00.000Z', epoch: 1 }, 'a renewal keeps the epoch');
  const b = await instance('b');
  assert.is((await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(12 * 60_000) })).held, false, 'renewed past the first expiry');
});

test('after the holder lets its lease expire the other instance takes over', async () => {
  const a = await instance('a');
  const b = await instance('b');
  await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 });
  assert.equal(await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(TTL + 1000) }), {
    held: true,
    holder: 'b:2',
    expiresAt: '2026-11-29T08:20:01.000Z',
    epoch: 2,
  });
  assert.equal(await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(TTL + 2000) }), {
    held: false,
    holder: 'b:2',
    expiresAt: '2026-11-29T08:20:01.000Z',
    epoch: 2,
  });
});

test('instances racing for a free lease: the compare-and-swap lets exactly one win, the rest get held:false', async () => {
  const repos = await Promise.all(['a', 'b', 'c', 'd'].map(instance));
  const results = await Promise.all(repos.map((r, i) => takeLease(r, { holder: `h:${i}`, ttlMs: TTL, now: T0 })));
  const winners = results.filter((r) => r.held);
  assert.is(winners.length, 1);
  const winner = winners[0]!.holder;
  for (const r of results.filter((x) => !x.held)) assert.is(r.holder, winner);
  assert.is(JSON.parse(sb.git(sb.remote, 'log', '-1', '--format=%B', LEASE_REF)).holder, winner);
});

test('a lease commit nobody can read counts as expired and is taken', async () => {
  const other = sb.clone('other');
  const tree = sb.git(other, 'hash-object', '-t', 'tree', '-w', '/dev/null');
  const junk = sb.git(other, 'commit-tree', tree, '-m', 'not json');
  sb.git(other, 'push', '--quiet', 'origin', `${junk}:${LEASE_REF}`);
  const a = await instance('a');
  assert.is((await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 })).held, true);
});

test('holder ids are unique per process: host name, pid and a nonce, so two containers with equal host name and pid never share a lease', () => {
  const [host, pid, nonce, ...rest] = processHolder().split(':');
  assert.is(host, hostname());
  assert.is(pid, String(process.pid));
  assert.match(nonce ?? '', /^[0-9a-f]{8}$/);
  assert.equal(rest, []);
  assert.is(processHolder(), processHolder(), 'one id for the life of the process');
});

test('a renewal never moves the expiry backwards: a clock stepped back keeps the later expiry', async () => {
  const a = await instance('a');
  await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: at(60_000) });
  assert.equal(await takeLease(a, { holder: 'a:1', ttlMs: TTL, now: T0 }), { held: true, holder: 'a:1', expiresAt: '2026-11-29T08:11:00.000Z', epoch: 1 });
  // A release (ttl 0) still lets it go.
  assert.equal(await takeLease(a, { holder: 'a:1', ttlMs: 0, now: T0 }), { held: true, holder: 'a:1', expiresAt: '2026-11-29T08:00:00.000Z', epoch: 1 });
});

test('withLease runs its body only while holding the lease, and lets it go after, also when the body fails', async () => {
  const a = await instance('a');
  const b = await instance('b');
  await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: T0 });
  let ran = false;
  const refused = await withLease(a, { holder: 'a:1', now: () => at(1000) }, async () => (ran = true));
  assert.equal(refused, { held: false, holder: 'b:2', expiresAt: '2026-11-29T08:10:00.000Z' });
  assert.is(ran, false);
  await takeLease(b, { holder: 'b:2', ttlMs: 0, now: at(1000) });
  class Boom extends Error {}
  const failed = await withLease(a, { holder: 'a:1', now: () => at(2000) }, async (lease) => {
    assert.equal(lease.expiresAt(), at(2000 + TTL));
    throw new Boom('the tick failed');
  }).catch((err: unknown) => err);
  assert.instance(failed, Boom);
  assert.is((await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: at(3000) })).held, true, 'let go at once');
});

test('withLease renews while its body waits (a prompt), so the expiry it hands the body moves on with the clock', async () => {
  const a = await instance('a');
  const b = await instance('b');
  let clock = T0.getTime();
  const leased = await withLease(a, { holder: 'a:1', ttlMs: TTL, now: () => new Date(clock), renewEveryMs: 5 }, async (lease) => {
    const first = lease.expiresAt()!.getTime();
    clock += 5 * 60_000;
    for (let i = 0; i < 2000 && lease.expiresAt()!.getTime() === first; i++) await sleep(10);
    const renewed = lease.expiresAt()!.getTime();
    // The renewed lease outlives the first one: another instance still stands by after the first expiry.
    const other = await takeLease(b, { holder: 'b:2', ttlMs: TTL, now: new Date(first + 1000) });
    return { first, renewed, otherHeld: other.held };
  });
  assert.ok(leased.held);
  assert.is(leased.value.renewed, T0.getTime() + 5 * 60_000 + TTL);
  assert.is(leased.value.otherHeld, false);
});

test.run();
