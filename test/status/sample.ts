// One hand-built fleet with a bit of everything, for the status tests.

import { buildFleet } from '../../src/fleet/index.js';
import type { StorageDecl } from '../../src/types/config.js';
import type { Fleet } from '../../src/types/fleet.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, routerUp, snapshot, stored, up } from '../fixtures/index.js';

export const W70 = 'meta-llama/Llama-3.1-70B-Instruct';
export const W8 = 'meta-llama/Llama-3.1-8B-Instruct';
const storage: StorageDecl[] = [
  { path: '/models', kind: 'local' },
  { path: '/lustre/models', kind: 'shared', filer: 'lustre-a' },
];

export function sampleFleet(opts: { gpuName?: string; webhooks?: boolean } = {}): Fleet {
  const name = opts.gpuName ?? 'NVIDIA H100 80GB HBM3';
  const c = config(
    [
      nodeConfig('a1', { storage }),
      nodeConfig('a2', { storage }),
      nodeConfig('a3', { storage, cordon: true }),
      nodeConfig('a4', { storage }),
      nodeConfig('b1', { fabric: 'ib-b', storage: storage.slice(0, 1) }),
      nodeConfig('b2', { fabric: 'ib-b' }),
    ],
    {
      routers: [{ name: 'rt-1', host: 'rt-1', port: 22 }],
      notify: { webhooks: opts.webhooks ? [{ url: 'https://hooks.example/SECRET-TOKEN', secret: 'hunter2' }] : [] },
    },
    [model('llama-70b', { weights: W70, gpus: 4, replicas: 2 }), model('llama-8b', { weights: W8, replicas: 2 })],
  );
  const snap = snapshot(
    [
      up(
        'a1',
        report(
          gpus(8, name),
          [replica('llama-70b-0', [0, 1, 2, 3], { startedAt: '2026-11-26T00:00:00Z' })],
          [stored('/models', [W70]), stored('/lustre/models', [W8], 'shared', 'lustre-a')],
        ),
      ),
      up(
        'a2',
        report(
          gpus(8, name, [7]),
          [replica('llama-8b-0', [0], { startedAt: '2026-11-29T06:00:00Z' })],
          [stored('/models', []), stored('/lustre/models', [W8], 'shared', 'lustre-a')],
        ),
      ),
      up('a3', report(gpus(8, name))),
      down('a4', '2026-11-29T07:55:00Z', report(gpus(8, name), [replica('llama-70b-1', [0, 1, 2, 3], { state: 'starting' })])),
      up('b1', report(gpus(8, 'NVIDIA H200'), [replica('llama-8b-1', [0], { startedAt: undefined })], [stored('/models', [W8])])),
    ],
    [routerUp('rt-1', '2026-11-25T00:00:00Z', { 'llama-8b-0': '2026-11-29T07:59:00Z' })],
  );
  return buildFleet(c, snap, emptyState(), NOW);
}
