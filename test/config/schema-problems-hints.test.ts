// Schema problems (docs/config.md): an unknown key under a map of names (an
// engine, a GPU class) is answered with the keys of one entry of that map, and
// a problem below a value that is not a mapping is shown at that value.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { schemaProblems } from '../../src/config/schema-problems.js';
import { parseYamlSource } from '../../src/config/yaml-source.js';
import { CLUSTER, ONE_GPU_MODELS, problemsOf, replaced } from '../fixtures/index.js';

/** The kit's CLUSTER with one node, n1, written on one line. */
const ONE_NODE = replaced(CLUSTER, '  - name: gpu-a[01-02]\n    fabric: ib-a', '  - { name: n1, fabric: ib-a }');

function clusterErrors(cluster: string): string[] {
  return problemsOf(cluster, ONE_GPU_MODELS);
}

test('an unknown key inside a named engine suggests the engine keys', () => {
  assert.equal(clusterErrors(`${ONE_NODE}    comand: [x]\n`), ["cluster.yaml:10:5: engines.vllm.comand: unknown key 'comand' (did you mean 'command'?)"]);
});

test('a problem reported below a null or a scalar is shown at that value, with the whole path', () => {
  const parsed = parseYamlSource('f.yaml', 'a: null\nb: 5\n', 'a mapping');
  assert.ok(parsed.ok);
  const issue = { message: 'must be object', keyword: 'type', params: {}, schemaPath: '#/type' };
  assert.equal(
    schemaProblems(parsed.source, 'cluster', [
      { ...issue, instancePath: '/a/x' },
      { ...issue, instancePath: '/b/y/z' },
    ]),
    [
      { file: 'f.yaml', line: 1, col: 4, path: 'a.x', message: 'must be object' },
      { file: 'f.yaml', line: 2, col: 4, path: 'b.y.z', message: 'must be object' },
    ],
  );
});

test.run();
