// Placements of record across ticks (docs/safety.md#records-over-reports,
// #write-ahead-intents): a holder that dies between its starts and its commit
// leaves intents the next holder adopts; a second-edition state.json without
// placements is seeded once from the committed snapshot, so an upgrade keeps
// every replica; a repo never reconciled seeds nothing.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSeededRemote, git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { INTENTS_REF } from '../../src/git/lease.js';
import { leasedTick } from '../../src/tick/run.js';
import type { Transport } from '../../src/types/transport.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';

const CLUSTER = tickClusterYaml({ nodes: 4 });
const MODELS = modelsYaml([{ name: 'm', gpus: 8, replicas: 1 }]);

class Died extends Error {}

test('write-ahead intents: a holder that dies after its start and before its commit; the next holder adopts the replica, starts no second copy, lists nothing unrecorded', async () => {
  const base = await mkdtemp(join(tmpdir(), 'llmgw-intents-'));
  try {
    const remote = await createSeededRemote(base, { 'cluster.yaml': CLUSTER, 'models.yaml': MODELS });
    const canned = cannedFleet({ nodes: tickNodes(4) });
    const inner = handlerTransport(canned);
    const seen: { intents: string | null } = { intents: null };
    // Dead once its start was taken: the next look at the clock never returns, as under kill -9 (not even the lease is let go).
    let dead = false;
    const clock = () => {
      if (dead) throw new Died('killed after the start, before anything was committed');
      return new Date();
    };
    const dying: Transport = {
      async run(target, command, input) {
        if (!command.endsWith('agent apply')) return inner.run(target, command, input);
        // Written ahead: the intents are on the remote before the start request goes out.
        seen.intents = await git(remote, ['log', '-1', '--format=%B', INTENTS_REF]).catch(() => null);
        const out = await inner.run(target, command, input);
        dead = true;
        return out;
      },
      close: async () => undefined,
    };
    const first = await openConfigRepo({ dir: join(base, 'a'), remote, branch: 'main', env: process.env });
    const died = await leasedTick({ repo: first, holder: 'a@h:1', transport: dying, env: {}, now: clock, push: true, log: () => undefined }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(died, Died);
    assert.ok(seen.intents?.includes('"replica":"m-0"'), String(seen.intents));
    assert.is(await git(remote, ['rev-list', '--count', 'main']), '1', 'nothing was committed');

    // Another holder, another checkout: only the remote carries what the first one did.
    const second = await openConfigRepo({ dir: join(base, 'b'), remote, branch: 'main', env: process.env });
    // Past the dead holder's lease.
    const later = () => new Date(Date.now() + 11 * 60_000);
    const next = await leasedTick({ repo: second, holder: 'b@h:2', transport: inner, env: {}, now: later, push: true, log: () => undefined });
    assert.ok(next.held);
    assert.equal(next.result.plan!.actions, [], 'm-0 is adopted, not started again');
    assert.is(next.result.report!.unrecorded, undefined);
    assert.equal(
      [...canned.replicas.values()].flat().map((r) => r.id),
      ['m-0'],
    );
    const state = JSON.parse(await git(remote, ['show', 'main:.llmgw/state.json'])) as { placements: Record<string, { port: number }> };
    assert.equal(Object.keys(state.placements), ['m-0']);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('seeding: a second-edition state.json (no placements) is seeded from the committed snapshot once: nothing stopped, nothing unrecorded', async () => {
  const w = await tickWorld({ cluster: CLUSTER, models: modelsYaml([{ name: 'm', gpus: 8, replicas: 2 }]), nodes: tickNodes(4), prefix: 'seed' });
  try {
    await w.tick(0);
    await w.tick(1);
    const file = join(w.dir, '.llmgw/state.json');
    const { placements, inventory: _inventory, ...secondEdition } = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    assert.equal(Object.keys(placements as object), ['m-0', 'm-1']);
    await writeFile(file, JSON.stringify(secondEdition, null, 2) + '\n');
    await git(w.dir, ['commit', '--quiet', '-am', 'an older llmgw wrote this state.json']);
    const r = await w.tick(2);
    assert.equal(r.plan!.actions, [], 'nothing stopped, nothing started');
    assert.is(r.report!.unrecorded, undefined);
    const after = JSON.parse(await readFile(file, 'utf8')) as { placements: Record<string, unknown> };
    assert.equal(Object.keys(after.placements), ['m-0', 'm-1'], 'the records are kept from now on');
  } finally {
    await w.close();
  }
});

test('seeding: a repo never reconciled seeds nothing, so what its nodes already run is unrecorded and left alone', async () => {
  const w = await tickWorld({ cluster: CLUSTER, models: MODELS, nodes: tickNodes(4), prefix: 'fresh' });
  try {
    w.canned.replicas.set('g2', [{ id: 'm-0', model: 'm', gpus: [0, 1, 2, 3, 4, 5, 6, 7], state: 'running', port: 8000, rank: 0 }]);
    const r = await w.tick(0);
    assert.equal(
      r.report!.unrecorded!.map((u) => [u.replica, u.node]),
      [['m-0', 'g2']],
    );
    const starts = r.plan!.actions.filter((a) => a.op === 'start');
    assert.equal([starts.length, r.plan!.actions.filter((a) => a.op === 'stop').length], [1, 0]);
    assert.is.not(starts[0]!.replica, 'm-0', 'an unrecorded id is never reused');
    assert.not.ok(
      starts[0]!.placement.some((p) => p.node === 'g2'),
      "its GPUs are the node's: not free",
    );
  } finally {
    await w.close();
  }
});

test.run();
