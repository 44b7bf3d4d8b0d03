// The third-edition fields of an agent report — replicas[].load, gpus[].xid,
// storage[].sizes (docs/protocol.md) — are accepted within their bounds, refused past
// them as that host's one-line error, and carried into the snapshot unchanged.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SshError } from '../../src/errors.js';
import { callJson } from '../../src/gather/call.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import type { HostTarget } from '../../src/types/transport.js';
import { oneNodeConfig, replying } from './sim-helpers.js';
import { getValidator } from '../../src/util/schema.js';
import { LLAMA_70B_SHAPE } from '../fixtures/index.js';

const target: HostTarget = { name: 'gpu-a01', host: '10.0.0.1', port: 22 };

const REPORT: AgentReport = {
  version: 1,
  gpus: [
    {
      index: 0,
      uuid: 'GPU-0',
      name: 'NVIDIA H100 80GB HBM3',
      memoryMiB: 81559,
      healthy: true,
      foreign: 0,
      xid: [{ code: 13, at: '2026-11-29T07:59:20.000Z' }],
    },
    {
      index: 2,
      uuid: 'GPU-2',
      name: 'NVIDIA H100 80GB HBM3',
      memoryMiB: 81559,
      healthy: true,
      foreign: 0,
      xid: [{ code: 79, at: '2026-11-29T07:59:10.223Z' }],
    },
  ],
  replicas: [
    {
      id: 'llama-3.1-70b-0',
      model: 'llama-3.1-70b',
      gpus: [0, 2],
      state: 'running',
      startedAt: '2026-11-29T07:00:00Z',
      port: 8000,
      rank: 0,
      spec: '5f2c9a1e',
      load: { running: 3, waiting: 0, progress: 48213, stalledSince: '2026-11-29T07:59:00.000Z' },
    },
  ],
  storage: [
    {
      path: '/models',
      kind: 'local',
      weights: ['meta-llama/Llama-3.1-70B-Instruct'],
      incomplete: [],
      sizes: {
        'meta-llama/Llama-3.1-70B-Instruct': {
          bytes: 141107412992,
          config: LLAMA_70B_SHAPE,
        },
      },
    },
  ],
  warnings: [],
};

async function verdict(report: unknown): Promise<string> {
  try {
    await callJson(replying(JSON.stringify(report)), target, 'llmgw agent report', { version: 1 }, 'agent-report');
    return 'ok';
  } catch (err) {
    if (!(err instanceof SshError)) throw err;
    return err.message.replace(/^.*not a valid agent-report: /, '');
  }
}

const edit = (f: (r: AgentReport) => void): AgentReport => {
  const r = structuredClone(REPORT);
  f(r);
  return r;
};

test('a report with load, xid and sizes is accepted', async () => {
  assert.is(await verdict(REPORT), 'ok');
  assert.is(await verdict(edit((r) => (r.storage[0]!.sizes!['meta-llama/Llama-3.1-70B-Instruct']!.config = null))), 'ok', 'config null without config.json');
});

test("past their bounds they are that host's error: 101 Xids on a GPU, a fractional code, a bad stalledSince, a negative load, fractional bytes", async () => {
  const xid = Array.from({ length: 101 }, () => ({ code: 79, at: '2026-11-29T07:59:10Z' }));
  assert.match(await verdict(edit((r) => (r.gpus[0]!.xid = xid))), /^\/gpus\/0\/xid: /);
  assert.match(await verdict(edit((r) => (r.gpus[0]!.xid = [{ code: 79.5, at: '2026-11-29T07:59:10Z' }]))), /^\/gpus\/0\/xid\/0\/code: /);
  assert.match(await verdict(edit((r) => (r.replicas[0]!.load!.stalledSince = 'yesterday'))), /^\/replicas\/0\/load\/stalledSince: /);
  assert.match(await verdict(edit((r) => (r.replicas[0]!.load!.running = -1))), /^\/replicas\/0\/load\/running: /);
  assert.match(await verdict(edit((r) => (r.storage[0]!.sizes!['meta-llama/Llama-3.1-70B-Instruct']!.bytes = 1.5))), /bytes: /);
  assert.match(await verdict(edit((r) => (r.storage[0]!.sizes!['meta-llama/Llama-3.1-70B-Instruct']!.config = { num_hidden_layers: 'eighty' }))), /config/);
});

test('gather carries them into the snapshot unchanged, and the snapshot schema accepts them', async () => {
  const config = oneNodeConfig();
  const snap = await gatherSnapshot(config, {
    transport: replying(JSON.stringify(REPORT)),
    previous: null,
    state: emptyState(),
    now: () => new Date('2026-11-29T08:00:00Z'),
  });
  assert.equal(snap.nodes, [{ name: 'gpu-a01', reachable: true, report: REPORT }]);
  assert.equal(getValidator('snapshot')(JSON.parse(JSON.stringify(snap))), { ok: true });
});

test.run();
