import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMA_DIR, SCHEMA_NAMES, formatSchemaIssues, getValidator } from '../../src/util/schema.js';
import { defined } from '../helpers/defined.js';

// The agent report of docs/protocol.md, verbatim apart from the elided uuid.
const contractReport = {
  version: 1,
  gpus: [{ index: 0, uuid: 'GPU-0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true }],
  replicas: [
    {
      id: 'llama-3.1-70b-0',
      model: 'llama-3.1-70b',
      gpus: [0, 1, 2, 3],
      state: 'running',
      startedAt: '2026-11-29T07:00:00Z',
      endpoint: 'http://gpu-a01.example:8000',
      rank: 0,
      spec: '5f2c9a1e',
    },
  ],
  storage: [
    { path: '/models', kind: 'local', weights: ['meta-llama/Llama-3.1-70B-Instruct'], incomplete: [] },
    { path: '/lustre/models', kind: 'shared', filer: 'lustre-a', weights: [], incomplete: [] },
  ],
  warnings: [],
};

test('every file in schemas/ is a named schema with a $id and compiles under strict mode', () => {
  const files = readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.schema.json'))
    .sort();
  assert.equal(files, SCHEMA_NAMES.map((n) => `${n}.schema.json`).sort());
  const strict = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  for (const f of files) strict.addSchema(JSON.parse(readFileSync(SCHEMA_DIR + f, 'utf8')));
  for (const f of files) {
    const schema = JSON.parse(readFileSync(SCHEMA_DIR + f, 'utf8'));
    assert.is(schema.$id, `https://llmgw.dev/schemas/${f}`);
    assert.ok(strict.getSchema(schema.$id), `${f} compiles`);
  }
  for (const name of SCHEMA_NAMES) assert.type(getValidator(name), 'function');
});

test('every property of every schema has a description, for editor hover', () => {
  const missing: string[] = [];
  function walk(node: unknown, at: string): void {
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, `${at}/${i}`));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') {
      for (const [k, v] of Object.entries(o.properties as Record<string, Record<string, unknown>>)) {
        if (typeof v.description !== 'string') missing.push(`${at}/properties/${k}`);
      }
    }
    // An `if` holds a condition, not properties a user writes.
    for (const [k, v] of Object.entries(o)) if (k !== 'if') walk(v, `${at}/${k}`);
  }
  for (const name of SCHEMA_NAMES) walk(JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')), name);
  assert.equal(missing, []);
});

test('the agent report of docs/protocol.md validates', () => {
  assert.equal(getValidator('agent-report')(contractReport), { ok: true });
});

test('an agent report without startedAt, port, rank or spec still validates: optional fields are optional', () => {
  const r = structuredClone(contractReport);
  r.replicas = [{ id: 'm-0', model: 'm', gpus: [0], state: 'starting' } as (typeof r.replicas)[0]];
  assert.equal(getValidator('agent-report')(r), { ok: true });
});

test('a bad agent report gives one short line per problem, pointing at the value', () => {
  const r = structuredClone(contractReport) as Record<string, unknown>;
  defined((r.gpus as Record<string, unknown>[])[0]).index = 'zero';
  delete r.warnings;
  const res = getValidator('agent-report')(r);
  assert.is(res.ok, false);
  if (res.ok) return;
  assert.is(formatSchemaIssues(res.errors), "/: must have required property 'warnings'; /gpus/0/index: must be integer");
});

test('the snapshot of docs/protocol.md validates, with the agent report and router usage it refers to', () => {
  const snap = {
    version: 1,
    observedAt: '2026-11-29T08:00:00Z',
    nodes: [
      { name: 'gpu-a01', reachable: true, report: contractReport },
      { name: 'gpu-a02', reachable: false, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-29T07:40:00Z', lastReport: null },
    ],
    routers: [
      { name: 'rt-1', reachable: true, report: { version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: { 'llama-3.1-70b-0': '2026-11-29T07:59:30Z' } } },
      { name: 'rt-2', reachable: false, error: 'refused' },
    ],
  };
  assert.equal(getValidator('snapshot')(snap), { ok: true });
  (defined(snap.nodes[0]).report as Record<string, unknown>).gpus = 'none';
  const res = getValidator('snapshot')(snap);
  assert.is(res.ok, false);
  if (!res.ok) assert.is(formatSchemaIssues(res.errors), '/nodes/0/report/gpus: must be array');
});

test('an unreachable node must say why; since when and its last report may be left out (read as unknown)', () => {
  const snap = { version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [{ name: 'n', reachable: false }], routers: [] };
  const res = getValidator('snapshot')(snap);
  assert.is(res.ok, false);
  if (!res.ok) {
    assert.is(formatSchemaIssues(res.errors, 5), "/nodes/0: must have required property 'error'");
  }
});

test('the apply request and reply of docs/protocol.md validate', () => {
  const req = {
    version: 1,
    node: 'gpu-a01',
    start: [
      {
        replica: 'llama-3.1-70b-1',
        model: 'llama-3.1-70b',
        spec: '5f2c9a1e',
        weights: 'meta-llama/x',
        weightsPath: '/models/meta-llama/x',
        gpus: [4, 5, 6, 7],
        port: 8001,
        endpoint: 'http://gpu-a01.example:8001',
        rank: 0,
        peers: ['gpu-a01'],
        command: ['vllm', 'serve', 'x'],
        env: { CUDA_VISIBLE_DEVICES: '4,5,6,7' },
        health: '/health',
        startTimeoutSeconds: 1200,
      },
    ],
    stop: ['old-model-0'],
  };
  assert.equal(getValidator('agent-apply-request')(req), { ok: true });
  const reply = {
    version: 1,
    results: [
      { replica: 'a-1', op: 'start', ok: true },
      { replica: 'b-0', op: 'stop', ok: false, error: 'x' },
    ],
  };
  assert.equal(getValidator('agent-apply-reply')(reply), { ok: true });
  assert.equal(getValidator('router-endpoints')({ version: 1, models: { m: [{ replica: 'm-0', url: 'http://h:8000' }], n: [] } }), { ok: true });
  assert.equal(getValidator('agent-report-request')({ version: 1, node: 'n', storage: [{ path: '/models', kind: 'local' }], weights: ['a/b'] }), { ok: true });
});

test('a validator is compiled once and reused', () => {
  assert.is(getValidator('router-usage'), getValidator('router-usage'));
});

test.run();
