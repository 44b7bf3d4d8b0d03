// What buildCapacity records for each node (src/plan/capacity.ts, docs/placement.md
// step 2), and how takeGpus changes it when placement puts a replica there: the
// node's one class (if it has one), the replicas and models on it, its taken
// ports and its free GPUs per class.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCapacity, nodesWithFree, takeGpus, wholeClass, type Capacity, type NodeCapacity } from '../../src/plan/capacity.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet } from '../fixtures/index.js';

/** The fields of one node's capacity that these rules are about, as plain data. */
function fields(cap: NodeCapacity) {
  return {
    free: Object.fromEntries(cap.free),
    uniformClass: cap.uniformClass,
    gpuCount: cap.gpuCount,
    replicaCount: cap.replicaCount,
    modelCount: Object.fromEntries(cap.modelCount),
    ports: [...cap.ports].sort((a, b) => a - b),
  };
}

const nodeOf = (capacity: Capacity, name: string) => capacity.byName.get(name)!;
const namesWithFree = (capacity: Capacity, cls: string, count: number) => [...nodesWithFree(capacity, cls, count)].map((c) => c.node.name);

/**
 * A replica whose port the agent did not report (no `port`, no port in its
 * endpoint): the fleet model gives it port null and counts no port of it as
 * used on its nodes (src/fleet/build-fleet.ts). The fixture always gives one.
 */
function withUnknownPort(fleet: Fleet, id: string): Fleet {
  fleet.replicaById.get(id)!.port = null;
  for (const node of fleet.nodes) {
    const ports = node.replicas.map((r) => fleet.replicaById.get(r)!.port).filter((p): p is number => p !== null);
    node.usedPorts = new Set(ports);
  }
  return fleet;
}

test('a node has a class only when every GPU is healthy and of that one class; one with an unhealthy or a different GPU, or none at all, has none', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', gpus: 2 },
      { name: 'a2', gpus: 2, unhealthy: [1] },
      { name: 'a3', gpus: 2, classes: ['H100', 'A100'] },
      { name: 'a4', gpus: 0 },
    ],
    models: [{ name: 'm' }],
  });
  const capacity = buildCapacity(fleet, new Set());
  assert.equal(
    capacity.nodes.map((c) => [c.node.name, c.uniformClass, c.gpuCount]),
    [
      ['a1', 'H100', 2],
      ['a2', null, 2],
      ['a3', null, 2],
      ['a4', null, 0],
    ],
  );
  assert.equal(capacity.nodes.map(wholeClass), ['H100', null, null, null]);
  assert.equal(fields(nodeOf(capacity, 'a4')), { free: {}, uniformClass: null, gpuCount: 0, replicaCount: 0, modelCount: {}, ports: [] });
});

test('replicas staying on a node count on it, with their models and ports; one this plan stops without waiting counts nowhere and frees its GPU and port', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', gpus: 4 }],
    replicas: [
      { id: 'x-0', model: 'x', ranks: [{ node: 'a1', gpus: [0] }], port: 8000 },
      { id: 'y-0', model: 'y', ranks: [{ node: 'a1', gpus: [1] }], port: 8001 },
      { id: 'y-1', model: 'y', ranks: [{ node: 'a1', gpus: [2] }], port: 8002 },
    ],
    models: [{ name: 'y', replicas: 2 }],
  });
  const capacity = buildCapacity(fleet, new Set(['x-0']));
  assert.equal(fields(nodeOf(capacity, 'a1')), {
    free: { H100: [0, 3] },
    uniformClass: 'H100',
    gpuCount: 4,
    replicaCount: 2,
    modelCount: { y: 2 },
    ports: [8001, 8002],
  });
  assert.is(wholeClass(nodeOf(capacity, 'a1')), null);
});

test("a staying replica whose port is unknown takes no port: the node's taken ports are only known port numbers", () => {
  const fleet = withUnknownPort(
    makeFleet({
      nodes: [{ name: 'a1', gpus: 2 }],
      replicas: [
        { id: 'x-0', model: 'x', ranks: [{ node: 'a1', gpus: [0] }] },
        { id: 'y-0', model: 'y', ranks: [{ node: 'a1', gpus: [1] }], port: 8001 },
      ],
      models: [{ name: 'x' }, { name: 'y' }],
    }),
    'x-0',
  );
  const capacity = buildCapacity(fleet, new Set());
  assert.equal(fields(nodeOf(capacity, 'a1')), {
    free: {},
    uniformClass: 'H100',
    gpuCount: 2,
    replicaCount: 2,
    modelCount: { x: 1, y: 1 },
    ports: [8001],
  });
});

test("placing a replica takes the lowest free GPUs, counts it and its model, takes its port; a class with no free GPU left is gone from the node's free classes", () => {
  const fleet = makeFleet({ nodes: [{ name: 'a1', gpus: 2 }], models: [{ name: 'm', replicas: 2 }] });
  const capacity = buildCapacity(fleet, new Set());
  const cap = nodeOf(capacity, 'a1');
  assert.is(wholeClass(cap), 'H100');

  assert.equal(takeGpus(capacity, cap, 'H100', 1, 'm', 8000), [0]);
  assert.equal(fields(cap), { free: { H100: [1] }, uniformClass: 'H100', gpuCount: 2, replicaCount: 1, modelCount: { m: 1 }, ports: [8000] });
  assert.is(wholeClass(cap), null);
  assert.equal([namesWithFree(capacity, 'H100', 1), namesWithFree(capacity, 'H100', 2)], [['a1'], []]);

  assert.equal(takeGpus(capacity, cap, 'H100', 1, 'm', 8001), [1]);
  assert.equal(fields(cap), { free: {}, uniformClass: 'H100', gpuCount: 2, replicaCount: 2, modelCount: { m: 2 }, ports: [8000, 8001] });
  assert.is(wholeClass(cap), null);
  assert.equal(namesWithFree(capacity, 'H100', 1), []);
});

test.run();
