import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { leasedTick } from '../../src/daemon/leased-tick.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { takeLease } from '../../src/git/lease.js';
import { sandbox, type Sandbox } from '../git/fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

const now = () => new Date();
const tickOptions = {
  transport: () => {
    throw new Error('no transport may be made without the lease');
  },
  env: {},
  now,
  push: false,
  log: () => undefined,
};

test('a leased tick (reconcile, demo) stands by while another instance holds the lease: nothing read, nothing run', async () => {
  const other = await openConfigRepo({ dir: join(sb.root, 'other'), remote: sb.remote, branch: 'main', env: sb.env });
  const me = await openConfigRepo({ dir: join(sb.root, 'me'), remote: sb.remote, branch: 'main', env: sb.env });
  await takeLease(other, { holder: 'run@host:1', ttlMs: 600_000, now: now() });
  const head = await me.head();
  const tick = await leasedTick({ repo: me, holder: 'reconcile@host:2', ...tickOptions });
  assert.is(tick.held, false);
  if (!tick.held) assert.is(tick.holder, 'run@host:1');
  assert.is(await me.head(), head);
});

test('a leased tick lets the lease go after, so the next instance takes it at once', async () => {
  const me = await openConfigRepo({ dir: join(sb.root, 'me'), remote: sb.remote, branch: 'main', env: sb.env });
  const other = await openConfigRepo({ dir: join(sb.root, 'other'), remote: sb.remote, branch: 'main', env: sb.env });
  // The tick itself fails here (no config in the sandbox repo): the lease must be let go all the same.
  await leasedTick({ repo: me, holder: 'reconcile@host:2', ...tickOptions }).catch(() => undefined);
  const next = await takeLease(other, { holder: 'run@host:1', ttlMs: 600_000, now: now() });
  assert.is(next.held, true);
});

test.run();
