// resolveCluster on plain data the schema has already judged: a value of the
// wrong type is left out (the schema reports it), never carried into the config.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveCluster } from '../../src/config/resolve-cluster.js';
import type { ResolveContext } from '../../src/config/resolve-context.js';
import { formatProblem } from '../../src/errors.js';
import type { Raw } from '../../src/config/raw.js';
import { CLUSTER, MODELS, parsePair, yamlOf } from '../fixtures/index.js';

function resolved(text: string) {
  const src = yamlOf('cluster.yaml', text);
  const ctx: ResolveContext = {
    src,
    env: { HOME: '/home/op', USER: 'op' },
    errors: [],
    warnings: [],
    substituted: [],
    host: { home: '/home/os-user', user: 'os-user', realpath: (p: string) => p },
  };
  const { cluster } = resolveCluster(ctx, src.value as Raw);
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
  const r = parsePair(text, MODELS);
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
