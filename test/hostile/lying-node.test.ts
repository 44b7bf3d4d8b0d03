// A compromised node's word against llmgw's records (docs/safety.md#records-over-reports):
// a node reports a replica it was never asked to start, a forged copy of a
// recorded id with an older startedAt, another port for a replica of record.
// Whole ticks (the real runTick on a canned fleet): what is counted, routed,
// stopped and written in STATUS.md follows the placements of record.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StopAction } from '../../src/types/plan.js';
import type { RouterEndpoints, ReplicaReport } from '../../src/types/snapshot.js';
import type { Transport } from '../../src/types/transport.js';
import { modelsYaml, replaced } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes, tickWorld, type TickWorld } from '../fixtures/tick-world.js';

interface World {
  world: TickWorld;
  /** Every table the router was sent, in order. */
  tables: RouterEndpoints[];
}

async function lyingWorld(replicas = 1): Promise<World> {
  const tables: RouterEndpoints[] = [];
  const wrap = (inner: Transport): Transport => ({
    async run(target, command, input) {
      if (command.endsWith('router endpoints')) tables.push(JSON.parse(input) as RouterEndpoints);
      return inner.run(target, command, input);
    },
    close: () => inner.close(),
  });
  const world = await tickWorld({
    cluster: tickClusterYaml({ nodes: 4, routers: ['r1'] }),
    models: modelsYaml([{ name: 'm', gpus: 8, replicas }]),
    nodes: tickNodes(4),
    prefix: 'liar',
    transport: wrap,
  });
  return { world, tables };
}

/** The node running `id` in the canned fleet. */
function nodeOf(w: TickWorld, id: string): string {
  for (const [node, list] of w.canned.replicas) if (list.some((r) => r.id === id)) return node;
  throw new Error(`${id} runs nowhere`);
}

function forge(w: TickWorld, node: string, r: Partial<ReplicaReport> & { id: string }): void {
  const list = w.canned.replicas.get(node) ?? [];
  list.push({ model: 'm', gpus: [0, 1, 2, 3, 4, 5, 6, 7], state: 'running', startedAt: '2020-01-01T00:00:00Z', port: 8000, rank: 0, ...r });
  w.canned.replicas.set(node, list);
}

const lastTable = (tables: RouterEndpoints[]) => tables[tables.length - 1]?.models['m'] ?? [];

test('records over reports: a replica a node was never asked to start is not counted, not routed, stops nothing, and is listed and left alone', async () => {
  const { world: w, tables } = await lyingWorld(1);
  try {
    await w.tick(0);
    await w.tick(1);
    const home = nodeOf(w, 'm-0');
    const liar = tickNodes(4).find((n) => n !== home)!;
    // The liar claims a running replica of m, started long before the real one.
    forge(w, liar, { id: 'm-9', endpoint: `http://${liar}:8000` });
    const r = await w.tick(2);
    assert.equal(r.plan!.actions, [], 'm-0 is not stopped as surplus, nothing is started or stopped');
    assert.ok(
      w.canned.replicas.get(home)!.some((x) => x.id === 'm-0'),
      'the legitimate replica still runs',
    );
    assert.ok(
      w.canned.replicas.get(liar)!.some((x) => x.id === 'm-9'),
      'the unrecorded one is left alone',
    );
    const m = r.report!.models.find((x) => x.name === 'm')!;
    assert.equal([m.desired, m.running], [1, 1], 'm-9 is not counted');
    assert.equal(
      lastTable(tables).map((e) => e.replica),
      ['m-0'],
      'the model stays routed to the recorded replica only',
    );
    assert.equal(
      r.report!.unrecorded!.map((u) => [u.replica, u.node]),
      [['m-9', liar]],
    );
    assert.match(r.status, `node ${liar} reports replica m-9 that llmgw never started; left alone`);
    // Its GPUs are the node's: not free for placement.
    assert.not.ok(
      r.report!.replicas.some((x) => x.id === 'm-9'),
      'not a replica of the fleet',
    );
    const state = JSON.parse(readFileSync(join(w.dir, '.llmgw/state.json'), 'utf8')) as { placements: Record<string, unknown> };
    assert.equal(Object.keys(state.placements), ['m-0'], 'm-9 never becomes a record');
    // A tick later it is still unrecorded: a report does not become a record by being seen twice.
    const again = await w.tick(3);
    assert.equal(again.plan!.actions, []);
    assert.equal(
      again.report!.unrecorded!.map((u) => u.replica),
      ['m-9'],
    );
  } finally {
    await w.close();
  }
});

test('records over reports: a forged copy of a recorded id on another node is the duplicate, whatever older startedAt it claims', async () => {
  const { world: w, tables } = await lyingWorld(1);
  try {
    await w.tick(0);
    await w.tick(1);
    const home = nodeOf(w, 'm-0');
    const liar = tickNodes(4).find((n) => n !== home)!;
    forge(w, liar, { id: 'm-0', startedAt: '2000-01-01T00:00:00Z', endpoint: `http://${liar}:8000` });
    const r = await w.tick(2);
    const stops = r.plan!.actions.filter((a): a is StopAction => a.op === 'stop');
    assert.equal(
      stops.map((a) => [a.replica, a.placement.map((p) => p.node), a.duplicate === true]),
      [['m-0', [liar], true]],
    );
    assert.ok(w.canned.replicas.get(home)!.some((x) => x.id === 'm-0'));
    assert.not.ok(
      w.canned.replicas.get(liar)!.some((x) => x.id === 'm-0'),
      'the forged copy was stopped',
    );
    assert.equal(
      lastTable(tables).map((e) => e.url),
      [`http://${home}:8000`],
    );
  } finally {
    await w.close();
  }
});

test('records over reports: routes use the port of record, not one the node reports later', async () => {
  const { world: w, tables } = await lyingWorld(1);
  try {
    await w.tick(0);
    await w.tick(1);
    const home = nodeOf(w, 'm-0');
    const rep = w.canned.replicas.get(home)!.find((x) => x.id === 'm-0')!;
    const recorded = rep.port!;
    rep.port = 9999;
    rep.endpoint = `http://${home}:9999`;
    const r = await w.tick(2);
    assert.equal(
      lastTable(tables).map((e) => e.url),
      [`http://${home}:${recorded}`],
    );
    assert.equal(
      r.report!.endpointWarnings.map((x) => [x.replica, x.routed]),
      [['m-0', `http://${home}:${recorded}`]],
    );
  } finally {
    await w.close();
  }
});

/** A world whose node g4 starts claiming 1,024 GPUs once `lie.on` is set; `declared`: cluster.yaml says each node has 8. */
async function inflatedWorld(declared: boolean): Promise<{ world: TickWorld; lie: { on: boolean } }> {
  const lie = { on: false };
  const wrap = (inner: Transport): Transport => ({
    async run(target, command, input) {
      const out = await inner.run(target, command, input);
      if (!lie.on || target.name !== 'g4' || !command.endsWith('agent report')) return out;
      const report = JSON.parse(out) as { gpus: { index: number }[] };
      const gpu = report.gpus[0]!;
      return JSON.stringify({ ...report, gpus: Array.from({ length: 1024 }, (_, index) => ({ ...gpu, index })) }) + '\n';
    },
    close: () => inner.close(),
  });
  const base = tickClusterYaml({ nodes: 4 });
  const cluster = declared ? replaced(base, '{ name: "g[1-4]", fabric: ib-a }', '{ name: "g[1-4]", fabric: ib-a, gpus: 8 }') : base;
  const world = await tickWorld({ cluster, models: modelsYaml([{ name: 'm', gpus: 1, replicas: 1 }]), nodes: tickNodes(4), prefix: 'gpus', transport: wrap });
  return { world, lie };
}

for (const declared of [true, false]) {
  const how = declared ? 'nodes[].gpus: 8 declared' : 'no declaration, the best-known inventory of 8';
  test(`records over reports: a node claiming 1,024 GPUs (${how}) does not absorb a new model's 20 replicas; STATUS.md says so`, async () => {
    const { world: w, lie } = await inflatedWorld(declared);
    try {
      await w.tick(0);
      lie.on = true;
      await w.commit(
        {
          'models.yaml': modelsYaml([
            { name: 'm', gpus: 1, replicas: 1 },
            { name: 'n', gpus: 1, replicas: 20 },
          ]),
        },
        'add n',
      );
      const r = await w.tick(1);
      const starts = r.plan!.actions.filter((a) => a.op === 'start' && a.model === 'n');
      assert.is(starts.length, 20, 'all 20 placed: 31 GPUs are free in truth');
      const onLiar = starts.filter((a) => a.placement.some((p) => p.node === 'g4'));
      assert.ok(onLiar.length <= 8, `${onLiar.length} replicas of n on g4`);
      assert.ok(
        onLiar.every((a) => a.placement.every((p) => p.gpus.every((g) => g < 8))),
        'only its first 8 GPUs by index',
      );
      const source = declared ? 'as cluster.yaml declares' : 'the most it reported before';
      assert.match(r.status, `node g4 reports 1024 GPUs, more than the 8 it is believed to have (${source}); placed with 8`);
      assert.equal(r.report!.inventoryBounded, [{ node: 'g4', reported: 1024, believed: 8, source: declared ? 'declared' : 'best-known' }]);
      const state = JSON.parse(readFileSync(join(w.dir, '.llmgw/state.json'), 'utf8')) as { inventory: Record<string, number> };
      assert.equal(state.inventory, { g1: 8, g2: 8, g3: 8, g4: 8 }, 'the lie does not raise the best-known inventory');
    } finally {
      await w.close();
    }
  });
}

test.run();
