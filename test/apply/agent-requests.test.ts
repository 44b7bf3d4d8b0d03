import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandArgv, startRequests, weightsPathFor } from '../../src/apply/agent-requests.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { StorageReport } from '../../src/types/snapshot.js';
import { config, fleet, node, pairConfig, startAction } from './fixtures.js';

const storage = [
  { path: '/lustre/models', kind: 'shared' as const, filer: 'lustre-a' },
  { path: '/models', kind: 'local' as const },
];

function report(entries: StorageReport[]) {
  return { version: 1 as const, gpus: [], replicas: [], storage: entries, warnings: [] };
}

test('a placeholder value stays one argv element, spaces and all', () => {
  assert.equal(expandArgv(['a', '{model}', '--x={port}', '{unknown}'], { model: 'm; rm -rf /', port: '8001' }), ['a', 'm; rm -rf /', '--x=8001', '{unknown}']);
});

test('weightsPath is the storage path whose report holds the weights', () => {
  const n = node('g1', { storage });
  const f = fleet(
    config([n]),
    [],
    {},
    {
      g1: report([
        { path: '/lustre/models', kind: 'shared', filer: 'lustre-a', weights: [], incomplete: [] },
        { path: '/models', kind: 'local', weights: ['meta/llama'], incomplete: [] },
      ]),
    },
  );
  assert.is(weightsPathFor(n, f.nodeByName.get('g1'), 'meta/llama'), '/models/meta/llama');
});

test('weights held nowhere go under the first local path, else the first path, else stay a name', () => {
  assert.is(weightsPathFor(node('g1', { storage }), undefined, 'meta/llama'), '/models/meta/llama');
  assert.is(weightsPathFor(node('g1', { storage: [storage[0]!] }), undefined, 'meta/llama'), '/lustre/models/meta/llama');
  assert.is(weightsPathFor(node('g1'), undefined, 'meta/llama'), 'meta/llama');
});

test('a report listing weights under a path cluster.yaml never named does not count', () => {
  const n = node('g1', { storage: [storage[1]!] });
  const f = fleet(config([n]), [], {}, { g1: report([{ path: '/elsewhere', kind: 'local', weights: ['meta/llama'], incomplete: [] }]) });
  assert.is(weightsPathFor(n, f.nodeByName.get('g1'), 'meta/llama'), '/models/meta/llama');
});

test('a one-node start carries command, env, endpoint, spec, health and timeout', () => {
  const cfg = config([node('g1', { storage })]);
  const [only, ...rest] = startRequests(startAction('llama-0', 8001, [{ node: 'g1', gpus: [2, 3] }]), cfg, fleet(cfg, []));
  assert.is(rest.length, 0);
  assert.is(only!.node, 'g1');
  assert.equal(only!.request, {
    replica: 'llama-0',
    model: 'llama',
    spec: replicaSpec(cfg.models[0]!, cfg.cluster.engines.vllm!),
    weights: 'meta/llama',
    weightsPath: '/models/meta/llama',
    gpus: [2, 3],
    port: 8001,
    endpoint: 'http://g1.example:8001',
    rank: 0,
    peers: ['g1'],
    command: ['vllm', 'serve', '/models/meta/llama', '--tp', '2', '--port', '8001', '--host=g1.example', '--name', 'llama x'],
    env: { CUDA_VISIBLE_DEVICES: '2,3' },
    health: '/health',
    startTimeoutSeconds: 1200,
  });
});

test('a two-node start gives each rank its host and rank, and every rank the head', () => {
  const cfg = config([node('g1'), node('g2')]);
  const action = startAction('big-0', 8000, [
    { node: 'g2', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
    { node: 'g1', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
  ]);
  const reqs = startRequests(action, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => r.node),
    ['g2', 'g1'],
  );
  assert.equal(
    reqs.map((r) => r.request.rank),
    [0, 1],
  );
  assert.equal(reqs[1]!.request.command.slice(-6), ['--head', 'g2.example', '--rank', '1', '--nodes', '2']);
  assert.ok(reqs[1]!.request.command.includes('--host=g1.example'));
  assert.equal(reqs[1]!.request.peers, ['g2', 'g1']);
  assert.is(reqs[1]!.request.endpoint, 'http://g2.example:8000');
});

test("each rank of a multi-node replica sees its own GPUs in CUDA_VISIBLE_DEVICES, not rank 0's", () => {
  const cfg = pairConfig();
  const action = startAction('pair-0', 8002, [
    { node: 'g2', gpus: [4, 5, 6, 7] },
    { node: 'g1', gpus: [0, 2, 3, 5] },
  ]);
  const reqs = startRequests(action, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => [r.node, r.request.rank, r.request.gpus, r.request.env]),
    [
      ['g2', 0, [4, 5, 6, 7], { CUDA_VISIBLE_DEVICES: '4,5,6,7' }],
      ['g1', 1, [0, 2, 3, 5], { CUDA_VISIBLE_DEVICES: '0,2,3,5' }],
    ],
  );
  assert.equal(
    reqs.map((r) => r.request.command.slice(3, 5)),
    [
      ['--tp', '4'],
      ['--tp', '4'],
    ],
    '{gpus} is the count per rank',
  );
});

test('weightsPath follows the report: weights held only on the shared path are used there, not fetched to the local one', () => {
  const n = node('g1', { storage: [storage[1]!, storage[0]!] });
  // The report lists the shared path first; each declared path is matched by its own entry.
  const f = fleet(
    config([n]),
    [],
    {},
    {
      g1: report([
        { path: '/lustre/models', kind: 'shared', filer: 'lustre-a', weights: ['meta/llama'], incomplete: [] },
        { path: '/models', kind: 'local', weights: [], incomplete: [] },
      ]),
    },
  );
  assert.is(weightsPathFor(n, f.nodeByName.get('g1'), 'meta/llama'), '/lustre/models/meta/llama');
});

test('a start that cannot be built fails with a line naming what is missing: model, engine, node', () => {
  const cfg = config([node('g1')]);
  const start = (model: string, nodeName = 'g1') => startAction(`${model}-0`, 8000, [{ node: nodeName, gpus: [0] }]);
  assert.throws(
    () => startRequests(start('ghost'), cfg, fleet(cfg, [])),
    (e: Error) => e.message === 'start of ghost-0: model ghost is not in models.yaml',
  );
  const noEngine = { ...cfg, models: [{ ...cfg.models[0]!, engine: 'sglang' }] };
  assert.throws(
    () => startRequests(start('llama'), noEngine, fleet(noEngine, [])),
    (e: Error) => e.message === 'start of llama-0: engine sglang is not in cluster.yaml',
  );
  assert.throws(
    () => startRequests(start('llama', 'g9'), cfg, fleet(cfg, [])),
    (e: Error) => e.message === 'node g9 is not in cluster.yaml',
  );
});

test('a node cluster.yaml lists that the fleet does not know yet still gets its own host in the request', () => {
  const cfg = config([node('g1'), node('g2'), node('g3')]);
  const known = fleet(config([node('g1')]), []);
  const [only] = startRequests(startAction('llama-0', 8001, [{ node: 'g2', gpus: [0, 1] }]), cfg, known);
  assert.is(only!.request.endpoint, 'http://g2.example:8001');
  assert.ok(only!.request.command.includes('--host=g2.example'));
});

test('a start with no placement is refused with its replica named, before any request is built', () => {
  const cfg = config([node('g1', { storage })]);
  assert.throws(
    () => startRequests(startAction('llama-7', 8001, []), cfg, fleet(cfg, [])),
    (err: unknown) => err instanceof Error && err.message === 'start llama-7 has no placement',
  );
});

test.run();
