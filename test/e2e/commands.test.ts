// `llmgw apply`, `llmgw reconcile` and `llmgw demo` run in-process against the
// simulated fleet, as a user would type them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as apply } from '../../src/cli/commands/apply.js';
import { run as reconcile } from '../../src/cli/commands/reconcile.js';
import { git } from '../../src/demo/git-remote.js';
import { UsageError } from '../../src/errors.js';
import { takeLease } from '../../src/git/lease.js';
import { captureIo } from '../helpers/io.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

let e: E2E;
const env = () => ({ ...e.env });

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

test('apply without a terminal and without --yes refuses before touching anything', async () => {
  const c = captureIo({ cwd: e.workdir, env: env() });
  try {
    await apply([], c.io);
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, UsageError);
  }
  assert.equal(await e.replicasOnFleet(), []);
});

test('apply refuses uncommitted edits to models.yaml', async () => {
  const file = join(e.workdir, 'models.yaml');
  const committed = await readFile(file, 'utf8');
  await writeFile(file, modelsYaml([{ name: 'small', replicas: 2 }]));
  const c = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes'], c.io), 1);
  assert.match(c.err(), /uncommitted edits to models\.yaml/);
  assert.equal(await e.replicasOnFleet(), []);
  await writeFile(file, committed);
});

test('apply acts only without another holder of the lease: a running reconciler on the same remote is never raced', async () => {
  await takeLease(e.repo, { holder: 'run@elsewhere', ttlMs: 600_000, now: new Date() });
  const c = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes'], c.io), 1);
  assert.match(c.err(), /^llmgw apply: the lease is held by run@elsewhere until \S+: nothing applied\n$/);
  assert.equal(await e.replicasOnFleet(), []);
  await takeLease(e.repo, { holder: 'run@elsewhere', ttlMs: 0, now: new Date() });
});

test('apply --yes shows the plan with its STATUS.md diff, applies it and writes STATUS.md without committing', async () => {
  const head = await git(e.workdir, ['rev-parse', 'HEAD']);
  const c = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes'], c.io), 0);
  assert.match(c.out(), /\+ start\s+small-0/);
  assert.match(c.out(), /\+\+\+ STATUS\.md \(planned\)/);
  assert.match(c.out(), /start small-0: ok/);
  assert.equal(
    (await e.replicasOnFleet()).map((r) => r.id),
    ['small-0'],
  );
  assert.match(await readFile(join(e.workdir, 'STATUS.md'), 'utf8'), /small/);
  assert.is(await git(e.workdir, ['rev-parse', 'HEAD']), head);
});

test('reconcile --no-push commits the generated files locally and leaves the remote as it was', async () => {
  const remoteHead = await e.remoteHead();
  const c = captureIo({ env: env() });
  assert.is(await reconcile(['--repo', e.workdir, '--no-push'], c.io), 0, c.err());
  assert.match(c.out(), /committed [0-9a-f]{12}/);
  assert.is(await e.remoteHead(), remoteHead);
  assert.is(await git(e.workdir, ['log', '-1', '--format=%an']), 'llmgw');
});

test('reconcile pushes, and a second instance finds nothing to do', async () => {
  const c = captureIo({ env: env() });
  assert.is(await reconcile(['--repo', e.workdir], c.io), 0, c.err());
  const head = await e.remoteHead();
  assert.is(await git(e.workdir, ['rev-parse', 'HEAD']), head);
  const again = captureIo({ env: env() });
  assert.is(await reconcile(['--repo', e.workdir], again.io), 0, again.err());
  assert.match(again.out(), /no commit/);
  assert.is(await e.remoteHead(), head);
});

test('apply refuses a blocked plan, and --force lets it through by hand', async () => {
  await e.push({ 'models.yaml': modelsYaml([{ name: 'small', replicas: 0 }]) }, 'Scale small to zero');
  await e.repo.sync();
  const refused = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes'], refused.io), 1);
  assert.match(refused.err(), /^llmgw apply: the plan is blocked: .*maxStopFraction.* \(--force applies it anyway\)\n$/);
  assert.equal(
    (await e.replicasOnFleet()).map((r) => r.id),
    ['small-0'],
  );
  const forced = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes', '--force'], forced.io), 0, forced.err());
  // A stop drains first (docs/safety.md#stopping-a-replica): out of the router now, stopped by the next apply.
  assert.match(forced.out(), /drain small-0: ok\n/);
  assert.match(forced.out(), /started 0, stopped 0, draining 1, waiting 0, failed 0/);
  assert.equal(
    (await e.replicasOnFleet()).map((r) => r.id),
    ['small-0'],
  );
  // Router evidence counts from a later second than the table change (observedAt is whole seconds).
  await sleep(1010 - (Date.now() % 1000));
  const next = captureIo({ cwd: e.workdir, env: env() });
  assert.is(await apply(['--yes'], next.io), 0, next.err());
  assert.match(next.out(), /stop small-0: ok\n/);
  assert.equal(await e.replicasOnFleet(), []);
});

test.run();
