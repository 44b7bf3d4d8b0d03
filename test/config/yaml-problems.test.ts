// Problems in the YAML itself, and where a problem is shown (docs/config.md):
// what a file that is not a mapping is called, duplicate keys and aliases by
// name and place, and a value left empty shown at its key.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { problemAt, parseYamlSource } from '../../src/config/yaml-source.js';
import { formatProblem } from '../../src/errors.js';
import { MODELS } from '../fixtures/index.js';

function clusterErrors(text: string): string[] {
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text }, models: { name: 'models.yaml', text: MODELS } }, { env: {} });
  return r.ok ? [] : r.errors.filter((e) => e.file === 'cluster.yaml').map(formatProblem);
}

function modelsErrors(gpus: string): string[] {
  const cluster = 'apiVersion: llmgw/v1\nkind: Cluster\nname: t\nfabrics: [a]\nnodes: [{ name: n1, fabric: a }]\nengines: { vllm: { command: [vllm] } }\n';
  const r = parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: MODELS.replace('gpus: 1', gpus) } },
    { env: {} },
  );
  return r.ok ? [] : r.errors.map(formatProblem);
}

test('a file that is not a mapping says what it found instead: a list, a number, a string, null', () => {
  assert.equal(clusterErrors('- a\n'), ['cluster.yaml:1:1: expected a mapping with apiVersion: llmgw/v1 and kind: Cluster, found a list']);
  assert.equal(clusterErrors('42\n'), ['cluster.yaml:1:1: expected a mapping with apiVersion: llmgw/v1 and kind: Cluster, found a number']);
  assert.equal(clusterErrors('hello\n'), ['cluster.yaml:1:1: expected a mapping with apiVersion: llmgw/v1 and kind: Cluster, found a string']);
  assert.equal(clusterErrors('~\n'), ['cluster.yaml:1:1: expected a mapping with apiVersion: llmgw/v1 and kind: Cluster, found null']);
});

test('a duplicate key is named as written, even indented, at the second one', () => {
  assert.equal(clusterErrors('apiVersion: llmgw/v1\nssh:\n  port: 22\n  port: 23\n'), [
    "cluster.yaml:4:3: duplicate key 'port': a key may appear once in a mapping",
  ]);
});

test('an alias without an anchor is shown where it is, after any alias that resolves', () => {
  assert.equal(clusterErrors('x-a: &a 1\nx-b: *a\nx-c: *missing\n'), ['cluster.yaml:3:6: an alias (*name) with no anchor (&name) before it']);
});

test('a value left empty is shown at its key; an explicit null, ~ or "" at the value', () => {
  assert.equal(modelsErrors('gpus:'), ['models.yaml:7:5: models[0].gpus: must be integer']);
  assert.equal(modelsErrors('gpus: null'), ['models.yaml:7:11: models[0].gpus: must be integer']);
  assert.equal(modelsErrors('gpus: ~'), ['models.yaml:7:11: models[0].gpus: must be integer']);
  assert.equal(modelsErrors('gpus: ""'), ['models.yaml:7:11: models[0].gpus: must be integer']);
});

test('a problem at a path that goes past a scalar is shown at the scalar, not a crash', () => {
  const parsed = parseYamlSource('f.yaml', 'a:\n  b: text\n', 'a mapping');
  assert.ok(parsed.ok);
  assert.equal(problemAt(parsed.source, ['a', 'b', 0, 'c'], 'x'), { file: 'f.yaml', line: 2, col: 6, path: 'a.b[0].c', message: 'x' });
});

test.run();
