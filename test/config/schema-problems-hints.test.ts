// Schema problems (docs/config.md): an unknown key under a map of names (an
// engine, a GPU class) is answered with the keys of one entry of that map, and
// a problem below a value that is not a mapping is shown at that value.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { schemaProblems } from '../../src/config/schema-problems.js';
import { parseYamlSource } from '../../src/config/yaml-source.js';
import { formatProblem } from '../../src/errors.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - { name: n1, fabric: ib-a }
engines:
  vllm:
    command: [vllm, serve]
`;

const MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m, weights: org/m, engine: vllm, gpus: 1 }\n';

function clusterErrors(cluster: string): string[] {
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: MODELS } }, { env: { HOME: '/h' } });
  return r.ok ? [] : r.errors.map(formatProblem);
}

test('an unknown key inside a named engine suggests the engine keys', () => {
  assert.equal(clusterErrors(`${CLUSTER}    comand: [x]\n`), ["cluster.yaml:10:5: engines.vllm.comand: unknown key 'comand' (did you mean 'command'?)"]);
});

test('a problem reported below a null or a scalar is shown at that value, with the whole path', () => {
  const parsed = parseYamlSource('f.yaml', 'a: null\nb: 5\n', 'a mapping');
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
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
