import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admit, fenceDir, highestEpoch } from '../../src/agent/fence.js';
import { runAgent } from '../../src/agent/main.js';
import type { AgentApplyReply } from '../../src/types/snapshot.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);

async function applyWith(lease: unknown, start: unknown[], stop: unknown[]): Promise<AgentApplyReply> {
  const out = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', ...(lease === undefined ? {} : { lease }), start, stop }), node.env);
  assert.is(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) as AgentApplyReply;
}

test('a request without a lease is epoch 0, admitted by a node that has never seen an epoch', async () => {
  const reply = await applyWith(undefined, [], ['nothing-0']);
  assert.equal(reply.results, [{ replica: 'nothing-0', op: 'stop', ok: true }]);
  assert.is(await highestEpoch(node.env), 0);
});

test('the highest epoch is kept in the state directory, and an equal one is admitted again', async () => {
  const first = await applyWith({ epoch: 5, holder: 'host-a:12:ab12' }, [], ['nothing-0']);
  assert.equal(first.results, [{ replica: 'nothing-0', op: 'stop', ok: true }]);
  assert.is(await highestEpoch(node.env), 5);
  assert.equal(await readdir(fenceDir(node.env)), ['epoch-5.json']);
  const again = await applyWith({ epoch: 5, holder: 'host-a:12:ab12' }, [], ['nothing-0']);
  assert.equal(again.results, [{ replica: 'nothing-0', op: 'stop', ok: true }]);
});

test('a lower epoch is refused on every entry with "fenced: epoch N < M", and nothing is stopped', async () => {
  const port = await freePort();
  const started = await applyWith({ epoch: 6, holder: 'host-b:1:cd34' }, [stubStart('keep-0', port)], []);
  assert.equal(started.results, [{ replica: 'keep-0', op: 'start', ok: true }]);
  assert.ok(await waitFor(async () => (await node.stateOf('keep-0')) === 'running'));
  const stale = await applyWith({ epoch: 5, holder: 'host-a:12:ab12' }, [stubStart('new-0', await freePort())], ['keep-0']);
  const fenced = { epoch: 5, highest: 6 };
  assert.equal(stale.results, [
    { replica: 'new-0', op: 'start', ok: false, error: 'fenced: epoch 5 < 6', fenced },
    { replica: 'keep-0', op: 'stop', ok: false, error: 'fenced: epoch 5 < 6', fenced },
  ]);
  assert.equal(
    (await node.report()).replicas.map((r) => [r.id, r.state]),
    [['keep-0', 'running']],
  );
  // An older reconciler, with no lease at all, is fenced too once the node has seen an epoch.
  const unleased = await applyWith(undefined, [], ['keep-0']);
  assert.equal(unleased.results, [{ replica: 'keep-0', op: 'stop', ok: false, error: 'fenced: epoch 0 < 6', fenced: { epoch: 0, highest: 6 } }]);
  const current = await applyWith({ epoch: 6, holder: 'host-b:1:cd34' }, [], ['keep-0']);
  assert.equal(current.results, [{ replica: 'keep-0', op: 'stop', ok: true }]);
});

test('a lease that is not {epoch: integer >= 0, holder} is a bad request, not epoch 0', async () => {
  const out = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', lease: { epoch: -1, holder: 'x' }, start: [], stop: [] }), node.env);
  assert.is(out.code, 1);
  assert.match(out.stderr, /bad apply request: \/lease\/epoch/);
});

test('racing admissions never move the highest epoch back: the highest wins, and every lower one after it is refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-fence-'));
  const env = { LLMGW_STATE_DIR: dir };
  try {
    const now = new Date('2026-12-01T00:00:00Z');
    await admit(env, { epoch: 3, holder: 'a' }, now);
    const epochs = [4, 9, 5, 8, 6, 7, 4, 9, 5];
    const outcomes = await Promise.all(epochs.map((epoch) => admit(env, { epoch, holder: `h${epoch}` }, now)));
    assert.is(await highestEpoch(env), 9);
    // Every 9 got in; whatever lower ones raced it, none is admitted now.
    assert.ok(outcomes.every((o, i) => epochs[i] !== 9 || o.ok));
    for (const epoch of [4, 5, 8]) {
      assert.equal(await admit(env, { epoch, holder: 'late' }, now), { ok: false, error: `fenced: epoch ${epoch} < 9`, fenced: { epoch, highest: 9 } });
    }
    // Markers below the highest are pruned by later admissions, so the directory does not grow with every holder.
    await admit(env, { epoch: 10, holder: 'z' }, now);
    assert.equal(await readdir(fenceDir(env)), ['epoch-10.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
