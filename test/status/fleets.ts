// Fleets for the status golden cases: one where nothing needs attention, one
// where nothing was observed, and one crowded past every cap (lists longer than
// the renderers write out, more fabrics than fit as columns, every GPU bucket,
// every replica state).

import { buildFleet } from '../../src/fleet/index.js';
import type { NodeConfig } from '../../src/types/config.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { NodeObservation } from '../../src/types/snapshot.js';
import type { Unplaceable } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, routerUp, snapshot, stored, up } from '../fixtures/index.js';

const WEBHOOK = { webhooks: [{ url: 'https://hooks.example/T0KEN' }] };
const ROUTER = [{ name: 'rt-1', host: 'rt-1', port: 22 }];

/**
 * Healthy nodes over 8 fabrics (declared out of order), H200 and H100 in one
 * fabric, a model fully running (one replica used a minute ago, one this very
 * second), its weights on two filers and a local disk, a webhook: nothing needs
 * attention.
 */
export function quietFleet(): Fleet {
  const fabrics = ['ib-h', 'ib-g', 'ib-f', 'ib-e', 'ib-d', 'ib-c', 'ib-b', 'ib-a'];
  const c = config(
    [
      nodeConfig('a0', { storage: [{ path: '/lustre-b', kind: 'shared', filer: 'lustre-b' }] }),
      nodeConfig('a1', { storage: [{ path: '/models', kind: 'local' }] }),
      nodeConfig('a2', { storage: [{ path: '/lustre-a', kind: 'shared', filer: 'lustre-a' }] }),
      nodeConfig('h1', { fabric: 'ib-h' }),
    ],
    { fabrics, routers: ROUTER, notify: WEBHOOK },
    [model('m', { replicas: 2, gpus: 2 })],
  );
  const snap = snapshot(
    [
      up(
        'a0',
        report(gpus(4, 'NVIDIA H200'), [replica('m-1', [0, 1], { startedAt: '2026-11-20T00:00:00Z' })], [stored('/lustre-b', ['org/m'], 'shared', 'lustre-b')]),
      ),
      up('a1', report(gpus(4), [replica('m-0', [0, 1], { startedAt: '2026-11-20T00:00:00Z' })], [stored('/models', ['org/m'])])),
      up('a2', report(gpus(4), [], [stored('/lustre-a', ['org/m'], 'shared', 'lustre-a')])),
      up('h1', report(gpus(4))),
    ],
    [routerUp('rt-1', '2026-11-01T00:00:00Z', { 'm-0': '2026-11-29T07:59:00Z', 'm-1': NOW })],
  );
  return buildFleet(c, snap, emptyState(), NOW);
}

/** Nodes in cluster.yaml, none of them ever heard from; no models. */
export function bareFleet(): Fleet {
  return buildFleet(config([nodeConfig('a1'), nodeConfig('a2')], { notify: WEBHOOK }), snapshot([]), emptyState(), NOW);
}

const pad = (n: number) => String(n).padStart(2, '0');
export const CROWDED_FABRICS = Array.from({ length: 24 }, (_, i) => `ib-${pad(i)}`);

/**
 * 80 nodes over 24 fabrics: 25 lost (some never in the snapshot), 22 unreachable,
 * 25 cordoned, 8 plain; H100 and H200 nodes; unhealthy GPUs of both classes;
 * 23 idle replicas and an idle two-node one; failed, starting and unknown-idleness
 * replicas; a replica unused for exactly idle.after; a model down; weights held
 * in every fabric and in none; 22 models that cannot be placed.
 */
export function crowdedFleet(): { fleet: Fleet; unplaceable: Unplaceable[] } {
  const name = (i: number) => `n${String(i).padStart(3, '0')}`;
  const nodes: NodeConfig[] = Array.from({ length: 80 }, (_, i) =>
    nodeConfig(name(i), {
      fabric: CROWDED_FABRICS[i % 24]!,
      cordon: i >= 47 && i < 72,
      storage: i % 3 === 0 ? [{ path: '/models', kind: 'local' }] : [{ path: '/lustre', kind: 'shared', filer: `lustre-${i % 2}` }],
    }),
  );
  const product = (i: number) => (i % 2 ? 'NVIDIA H200' : 'NVIDIA H100 80GB HBM3');
  const storageOf = (i: number) =>
    i % 3 === 0 ? [stored('/models', ['org/idle', 'org/every'])] : [stored('/lustre', ['org/pair', 'org/every'], 'shared', `lustre-${i % 2}`)];
  const observations: NodeObservation[] = [];
  for (let i = 0; i < 80; i++) {
    const n = name(i);
    if (i < 10) continue; // never in the snapshot: lost, "not in the snapshot"
    if (i < 25) observations.push(down(n, null, report(gpus(8, product(i)))));
    else if (i < 47) observations.push(down(n, `2026-11-29T07:5${1 + (i % 9)}:00Z`, report(gpus(8, product(i)), [], storageOf(i))));
    else if (i < 70) {
      const idle = replica(`idle-${pad(i - 47)}`, [0, 1], { startedAt: `2026-11-${pad(1 + ((i - 47) % 20))}T00:00:00Z` });
      observations.push(up(n, report(gpus(8, product(i)), [idle], storageOf(i))));
    } else if (i < 72) observations.push(up(n, report(gpus(8, product(i)))));
    else if (i === 72) observations.push(up(n, report(gpus(8, product(i), [7]))));
    else if (i === 73) observations.push(up(n, report(gpus(8, product(i), [6, 7]))));
    else if (i === 74 || i === 75) {
      const rank = i - 74;
      observations.push(
        up(n, report(gpus(8, product(i)), [replica('pair-0', [0, 1, 2, 3, 4, 5, 6, 7], { rank, startedAt: '2026-11-10T00:00:00Z' })], storageOf(i))),
      );
    } else if (i === 76) observations.push(up(n, report(gpus(8, product(i)), [replica('bad-0', [0], { state: 'failed' })])));
    else if (i === 77) observations.push(up(n, report(gpus(8, product(i)), [replica('new-0', [0], { state: 'starting' })])));
    else if (i === 78) observations.push(up(n, report(gpus(8, product(i)), [replica('anon-0', [0], { startedAt: undefined })])));
    // Unused for exactly idle.after (24 h): idle.
    else observations.push(up(n, report(gpus(8, product(i)), [replica('edge-0', [0], { startedAt: '2026-11-28T08:00:00Z' })], storageOf(i))));
  }
  const models = [
    model('idle', { replicas: 23, gpus: 2 }),
    model('pair', { replicas: 1, gpus: 8, nodes: 2 }),
    model('bad', { replicas: 1 }),
    model('new', { replicas: 1 }),
    model('anon', { replicas: 1 }),
    model('ghost', { replicas: 2 }),
    model('edge', { replicas: 1 }),
    model('every', { replicas: 0 }),
  ];
  const c = config(nodes, { fabrics: CROWDED_FABRICS, routers: ROUTER }, models);
  const fleet = buildFleet(c, snapshot(observations, [routerUp('rt-1', '2026-10-01T00:00:00Z')]), emptyState(), NOW);
  const unplaceable = Array.from({ length: 22 }, (_, i) => ({ model: `u${pad(21 - i)}`, missing: i + 1, reason: `needs ${i + 1} free H100 GPUs on one node` }));
  return { fleet, unplaceable };
}
