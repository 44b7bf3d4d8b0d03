import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { leasedTick } from '../../src/tick/run.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { takeLease } from '../../src/git/lease.js';
import { CLUSTER } from '../fixtures/config-yaml.js';
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

test('a leased tick lets the lease go after it ends, so the next instance takes it at once', async () => {
  const me = await openConfigRepo({ dir: join(sb.root, 'me'), remote: sb.remote, branch: 'main', env: sb.env });
  const other = await openConfigRepo({ dir: join(sb.root, 'other'), remote: sb.remote, branch: 'main', env: sb.env });
  // The sandbox's seed config is incomplete: the tick runs to its end as an invalid-config tick.
  const tick = await leasedTick({ repo: me, holder: 'reconcile@host:2', ...tickOptions });
  assert.is(tick.held, true);
  if (tick.held) assert.is(tick.result.configInvalid, true);
  const next = await takeLease(other, { holder: 'run@host:1', ttlMs: 600_000, now: now() });
  assert.is(next.held, true);
});

/** What the transport factory throws: told apart by identity, never by message. */
class NoTransport extends Error {}

test('a leased tick that fails part-way still lets the lease go, and the failure reaches the caller', async () => {
  const writer = sb.clone('writer');
  sb.write(writer, 'cluster.yaml', CLUSTER);
  sb.git(writer, 'commit', '--quiet', '-am', 'a valid config: the tick gets as far as asking for a transport');
  sb.git(writer, 'push', '--quiet', 'origin', 'main');
  const me = await openConfigRepo({ dir: join(sb.root, 'me'), remote: sb.remote, branch: 'main', env: sb.env });
  const other = await openConfigRepo({ dir: join(sb.root, 'other'), remote: sb.remote, branch: 'main', env: sb.env });
  const failure = new NoTransport('the transport cannot be made');
  const outcome = await leasedTick({
    repo: me,
    holder: 'reconcile@host:2',
    ...tickOptions,
    transport: () => {
      throw failure;
    },
  }).then(
    () => 'resolved',
    (err: unknown) => err,
  );
  assert.is(outcome, failure, 'the tick failed with the transport error');
  const next = await takeLease(other, { holder: 'run@host:1', ttlMs: 600_000, now: now() });
  assert.is(next.held, true);
});

test.run();
