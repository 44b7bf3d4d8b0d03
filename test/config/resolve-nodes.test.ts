// cluster.yaml's nodes: storage entries carry a filer only when it means
// something, a node without a fabric has none, and past the node cap nothing
// at all is expanded.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveNodes } from '../../src/config/resolve-nodes.js';
import type { ResolveContext } from '../../src/config/resolve-context.js';
import { parseYamlSource } from '../../src/config/yaml-source.js';
import { formatProblem } from '../../src/errors.js';
import type { Raw } from '../../src/config/raw.js';
import { MODELS, STORAGE_CLUSTER, replaced, validConfig } from '../fixtures/index.js';

const HEAD = 'apiVersion: llmgw/v1\nkind: Cluster\nname: test\nfabrics: [ib-a]\n';

function resolved(nodes: string) {
  const p = parseYamlSource('cluster.yaml', `${HEAD}nodes:\n${nodes}`, 'cluster');
  if (!p.ok) throw new Error(p.error.message);
  const ctx: ResolveContext = {
    src: p.source,
    env: {},
    errors: [],
    warnings: [],
    substituted: [],
    host: { home: '/home/os-user', user: 'os-user', realpath: (p: string) => p },
  };
  const out = resolveNodes(ctx, p.source.value as Raw, ['ib-a'], 22);
  return { nodes: out, errors: ctx.errors.map(formatProblem) };
}

test('storage: a filer is kept only on shared storage; otherwise the entry has no filer key at all', () => {
  const { nodes, errors } = resolved(
    [
      '  - name: gpu-a01',
      '    fabric: ib-a',
      '    storage:',
      '      - { path: /models/, kind: shared, filer: nas1 }',
      '      - { path: /scratch, kind: shared }',
      '      - { path: /local, kind: local, filer: nas2 }',
      '      - { path: /tmp }',
      '',
    ].join('\n'),
  );
  assert.equal(nodes[0]!.storage, [
    { path: '/models', kind: 'shared', filer: 'nas1' },
    { path: '/scratch', kind: 'shared' },
    { path: '/local', kind: 'local' },
    { path: '/tmp', kind: 'local' },
  ]);
  assert.equal(errors, ['cluster.yaml:11:38: nodes[0].storage[2].filer: a filer is only for shared storage']);
});

test('a node entry without a fabric resolves to fabric "" (the schema reports the missing key)', () => {
  const { nodes } = resolved('  - name: gpu-b01\n');
  assert.equal(nodes, [{ name: 'gpu-b01', host: 'gpu-b01', port: 22, fabric: '', cordon: false, storage: [] }]);
});

test('past the total node cap no node at all is resolved, and the entry that crossed it is reported once', () => {
  const { nodes, errors } = resolved('  - name: a[1-60000]\n    fabric: ib-a\n  - name: b[1-60000]\n    fabric: ib-a\n');
  assert.equal(nodes, []);
  assert.equal(errors, [
    'cluster.yaml:8:11: nodes[1].name: the node entries expand to more than 100,000 nodes in all (reached at this entry); nothing was expanded',
  ]);
});

test('storage paths: / stays /, trailing slashes go however many', () => {
  const c = validConfig(
    replaced(STORAGE_CLUSTER, '      - { path: /models, kind: local }', '      - { path: /, kind: local }\n      - { path: /models//, kind: local }'),
    MODELS,
  );
  assert.equal(c.cluster.nodes[0]!.storage, [
    { path: '/', kind: 'local' },
    { path: '/models', kind: 'local' },
  ]);
});

test.run();
