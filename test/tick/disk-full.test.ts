// A full disk mid-tick (docs/operations.md#crash-only): a replica was started, then
// nothing could be written. The tick ends with one line saying so, leaves no
// temporary file, lets the lease go; once there is room the next tick finds
// the replica and keeps it — never starts it twice.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chmod } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reportError } from '../../src/cli/report-error.js';
import { leasedTick } from '../../src/tick/run.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { cloneRemote, commitFiles, createSeededRemote, git } from '../../src/demo/git-remote.js';
import { WriteError } from '../../src/errors.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import type { Transport } from '../../src/types/transport.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes } from '../fixtures/tick-world.js';
import { captureIo } from '../helpers/io.js';
import { fill, mountTmpfs } from '../helpers/tmpfs.js';

const CLUSTER = tickClusterYaml({ nodes: 4 });
const models = (replicas: number) => modelsYaml([{ name: 'm', gpus: 8, replicas }]);

test('disk full after a start: one line, no temporary file, the lease let go; the next tick keeps the replica it started', async () => {
  const base = await mkdtemp(join(tmpdir(), 'llmgw-full-'));
  const fs = await mountTmpfs(4096);
  const workdir = join(fs?.dir ?? base, 'work');
  try {
    const remote = await createSeededRemote(base, { 'cluster.yaml': CLUSTER, 'models.yaml': models(2) });
    const repo = await openConfigRepo({ dir: workdir, remote, branch: 'main', env: process.env });
    const canned = cannedFleet({ nodes: tickNodes(4) });
    /** The replica ids the fleet runs, sorted. */
    const running = () =>
      [...canned.replicas.values()]
        .flat()
        .map((r) => r.id)
        .sort();
    let full = false;
    const inner = handlerTransport(canned);
    const transport: Transport = {
      async run(target, command, input) {
        const out = await inner.run(target, command, input);
        // The disk fills up while the replica starts: the tick can no longer write what it did.
        if (full && command.endsWith('agent apply')) {
          if (fs) await fill(fs.dir);
          else await chmod(join(workdir, '.llmgw'), 0o500); // not root: a write refused instead of a full disk
        }
        return out;
      },
      close: async () => undefined,
    };
    const tick = () => leasedTick({ repo, holder: 'reconcile@t:1', transport, env: {}, now: () => new Date(), push: true, log: () => undefined });
    assert.ok((await tick()).held);
    const people = join(base, 'people');
    await cloneRemote(remote, people);
    await commitFiles(people, { 'models.yaml': models(3) }, 'scale to 3');

    full = true;
    const err = await tick().then(
      () => null,
      (e: unknown) => e,
    );
    full = false;
    assert.instance(err, WriteError);
    const c = captureIo();
    reportError(err, c.io, 'reconcile');
    const lines = c.err().split('\n').filter(Boolean);
    assert.is(lines.length, 1, c.err());
    assert.match(lines[0]!, fs ? /^llmgw reconcile: cannot write STATUS\.md in .*: no space left on device \(ENOSPC\)$/ : /: permission denied \(EACCES\)$/);
    assert.equal(
      [...(await readdir(workdir)), ...(await readdir(join(workdir, '.llmgw')))].filter((n) => n.endsWith('.tmp')),
      [],
    );
    assert.is(await git(remote, ['for-each-ref', 'refs/llmgw/lease']), '', 'the lease was let go, full disk or not');
    assert.equal(running(), ['m-0', 'm-1', 'm-2']);

    if (fs) {
      await rm(join(fs.dir, 'ballast'), { force: true });
      await rm(join(fs.dir, 'ballast2'), { force: true });
    } else await chmod(join(workdir, '.llmgw'), 0o755);
    const next = await tick();
    assert.ok(next.held);
    assert.equal(next.result.plan!.actions, [], 'm-2 is found running, not started again');
    assert.ok(next.result.pushed);
    assert.equal(running(), ['m-0', 'm-1', 'm-2']);
    assert.match(await git(remote, ['show', 'main:STATUS.md']), /\| m \| 3 \| 3 \| 0 \| 0 \|/);
  } finally {
    if (fs) await fs.unmount();
    await rm(base, { recursive: true, force: true });
  }
});

test.run();
