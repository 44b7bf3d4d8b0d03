// resolveCluster on plain data the schema has already judged: a value of the
// wrong type is left out (the schema reports it), never carried into the config.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { resolveCluster, type ResolveContext } from '../../src/config/resolve-cluster.js';
import { parseYamlSource } from '../../src/config/yaml-source.js';
import { formatProblem } from '../../src/errors.js';
import type { Raw } from '../../src/config/raw.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - name: gpu-a[01-02]
    fabric: ib-a
engines:
  vllm:
    command: [vllm, serve]
`;

const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - name: m
    weights: org/m
    engine: vllm
    gpus: 1
`;

function resolved(text: string) {
  const p = parseYamlSource('cluster.yaml', text, 'cluster');
  if (!p.ok) throw new Error(p.error.message);
  const ctx: ResolveContext = { src: p.source, env: { HOME: '/home/op', USER: 'op' }, errors: [], warnings: [], substituted: [] };
  const { cluster } = resolveCluster(ctx, p.source.value as Raw);
  return { cluster, errors: ctx.errors.map(formatProblem) };
}

test('the cluster name is read as written, and a missing one resolves to "" (the schema reports it)', () => {
  assert.is(resolved(CLUSTER).cluster.name, 'test');
  assert.is(resolved(CLUSTER.replace('name: test\n', '')).cluster.name, '');
});

test('a router without a name is left out, and two of them are not a duplicate', () => {
  const text = `${CLUSTER}routers:\n  - { host: r1 }\n  - { host: r2 }\n  - { name: edge }\n`;
  const { cluster, errors } = resolved(text);
  assert.equal(cluster.routers, [{ name: 'edge', host: 'edge', port: 22 }]);
  assert.equal(errors, []);
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text }, models: { name: 'models.yaml', text: MODELS } }, { env: { HOME: '/home/op' } });
  assert.equal(r.ok ? [] : r.errors.map(formatProblem), [
    "cluster.yaml:12:5: routers[0]: missing required key 'name'",
    "cluster.yaml:13:5: routers[1]: missing required key 'name'",
  ]);
});

test('a gpuClasses entry whose glob is not a string is left out of the rules; the others keep file order', () => {
  const { cluster } = resolved(`${CLUSTER}gpuClasses:\n  h100: "NVIDIA H100*"\n  broken: 5\n  a100: "NVIDIA A100*"\n`);
  assert.equal(cluster.gpuClasses, [
    { name: 'h100', glob: 'NVIDIA H100*' },
    { name: 'a100', glob: 'NVIDIA A100*' },
  ]);
});

test('fabrics keeps only its string entries', () => {
  const { cluster } = resolved(CLUSTER.replace('fabrics: [ib-a]', 'fabrics: [ib-a, 7, ib-b]'));
  assert.equal(cluster.fabrics, ['ib-a', 'ib-b']);
});

test.run();
