// More of docs/config.md, as the mutants of src/config asked for it: keys left
// empty or of the wrong type are one clear problem each (never an internal
// error), values resolve as written, and the messages name what is wrong.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { gpuClassOf } from '../../src/config/gpu-class.js';
import { formatProblem } from '../../src/errors.js';
import type { Config } from '../../src/types/config.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a, ib-b]
nodes:
  - name: gpu-a[01-02]
    fabric: ib-a
    storage:
      - { path: /models, kind: local }
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

function parse(cluster: string, models: string, env: Record<string, string> = {}) {
  return parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
    { env: { HOME: '/home/op', ...env } },
  );
}
function errorsOf(cluster: string, models: string): string[] {
  const r = parse(cluster, models);
  return r.ok ? [] : r.errors.map(formatProblem);
}
function configOf(cluster: string, models = MODELS, env: Record<string, string> = {}): Config {
  const r = parse(cluster, models, env);
  if (!r.ok) throw new Error(r.errors.map(formatProblem).join('\n'));
  return r.config;
}
function replaced(base: string, from: string, to: string): string {
  assert.ok(base.includes(from), `base has ${JSON.stringify(from)}`);
  return base.replace(from, to);
}

type Case = [rule: string, file: 'cluster' | 'models', from: string, to: string, expected: string[]];

const CASES: Case[] = [
  ['a key left empty is "must be object", not a crash', 'cluster', 'name: test', 'name: test\nssh:', ['cluster.yaml:4:1: ssh: must be object']],
  [
    'engines left empty is one problem, and models are not checked against it',
    'cluster',
    'engines:\n  vllm:\n    command: [vllm, serve]\n',
    'engines:\n',
    ['cluster.yaml:10:1: engines: must be object'],
  ],
  [
    'a storage entry without a path',
    'cluster',
    '      - { path: /models, kind: local }',
    '      - { kind: local }',
    ["cluster.yaml:9:9: nodes[0].storage[0]: missing required key 'path'"],
  ],
  [
    'a node without a name',
    'cluster',
    '  - name: gpu-a[01-02]\n    fabric: ib-a',
    '  - fabric: ib-a',
    ["cluster.yaml:6:5: nodes[0]: missing required key 'name'"],
  ],
  ['a router without a name', 'cluster', 'name: test', 'name: test\nrouters:\n  - { host: x }', ["cluster.yaml:5:5: routers[0]: missing required key 'name'"]],
  [
    'a command part that is not a string',
    'cluster',
    'command: [vllm, serve]',
    'command: [vllm, 5]',
    ['cluster.yaml:12:21: engines.vllm.command[1]: must be string'],
  ],
  [
    'two models without a name are two missing names, not a duplicate',
    'models',
    '  - name: m',
    '  - weights: x\n    engine: vllm\n    gpus: 1\n  - weights: y\n    engine: vllm\n    gpus: 1\n  - name: m',
    ["models.yaml:4:5: models[0]: missing required key 'name'", "models.yaml:7:5: models[1]: missing required key 'name'"],
  ],
  ['a model without an engine is only that', 'models', '    engine: vllm\n', '\n', ["models.yaml:4:5: models[0]: missing required key 'engine'"]],
  [
    'an undeclared engine lists the declared ones',
    'cluster',
    'engines:\n  vllm:\n    command: [vllm, serve]\n',
    'engines:\n  sglang: { command: [sglang] }\n  tgi: { command: [tgi] }\n',
    ["models.yaml:6:13: models[0].engine: engine 'vllm' is not declared in cluster.yaml engines (declared: sglang, tgi)"],
  ],
  [
    'with no engine declared, the list says none',
    'cluster',
    'engines:\n  vllm:\n    command: [vllm, serve]\n',
    'engines: {}\n',
    ["models.yaml:6:13: models[0].engine: engine 'vllm' is not declared in cluster.yaml engines (declared: none)"],
  ],
  [
    'a malformed proxyJump says what it should look like',
    'cluster',
    'name: test',
    'name: test\nssh:\n  proxyJump: user@@host',
    ['cluster.yaml:5:14: ssh.proxyJump: must be user@host:port (user and port optional)'],
  ],
  [
    'a proxyJump port of 0 is not a TCP port',
    'cluster',
    'name: test',
    'name: test\nssh:\n  proxyJump: bastion:0',
    ['cluster.yaml:5:14: ssh.proxyJump: port 0 is not a TCP port (1..65535)'],
  ],
  [
    'a proxyJump port past 65535 is not a TCP port',
    'cluster',
    'name: test',
    'name: test\nssh:\n  proxyJump: bastion:65536',
    ['cluster.yaml:5:14: ssh.proxyJump: port 65536 is not a TCP port (1..65535)'],
  ],
  [
    'an idle.after too long to count is reported at idle.after',
    'cluster',
    'name: test',
    'name: test\nidle:\n  after: 99999999999999999d',
    ['cluster.yaml:5:10: idle.after: is too long a duration'],
  ],
  [
    'overlapping hostlists name the first clash and how many more',
    'cluster',
    '  - name: gpu-a[01-02]',
    '  - name: gpu-a[01-04]\n    fabric: ib-a\n  - name: gpu-a[02-04]',
    ["cluster.yaml:8:11: nodes[1].name: duplicate node name 'gpu-a02' and 2 more: already in nodes[0]"],
  ],
  [
    'two problems on one line come in column order',
    'cluster',
    'name: test',
    'name: test\nssh: { port: 0, connectTimeout: 0s }',
    ['cluster.yaml:4:14: ssh.port: must be >= 1', 'cluster.yaml:4:33: ssh.connectTimeout: must be longer than 0s'],
  ],
  [
    'a problem under a map key holding / or ~ is placed at that key and printed with it quoted',
    'cluster',
    'vllm:\n    command: [vllm, serve]',
    'a/b:\n    command: [vllm, serve]\n    basePort: x\n  c~d:\n    command: [vllm]\n    basePort: y',
    [
      'cluster.yaml:11:3: engines["a/b"]: name \'a/b\' must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
      'cluster.yaml:13:15: engines["a/b"].basePort: must be integer',
      'cluster.yaml:14:3: engines["c~d"]: name \'c~d\' must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
      'cluster.yaml:16:15: engines["c~d"].basePort: must be integer',
      "models.yaml:6:13: models[0].engine: engine 'vllm' is not declared in cluster.yaml engines (declared: a/b, c~d)",
    ],
  ],
];

for (const [rule, file, from, to, expected] of CASES) {
  test(rule, () => {
    const cluster = file === 'cluster' ? replaced(CLUSTER, from, to) : CLUSTER;
    const models = file === 'models' ? replaced(MODELS, from, to) : MODELS;
    assert.equal(errorsOf(cluster, models), expected);
  });
}

test('proxyJump ports 1 and 65535 are fine', () => {
  assert.equal(configOf(replaced(CLUSTER, 'name: test', 'name: test\nssh:\n  proxyJump: bastion:1')).cluster.ssh.proxyJump, {
    user: 'root',
    host: 'bastion',
    port: 1,
  });
  assert.equal(configOf(replaced(CLUSTER, 'name: test', 'name: test\nssh:\n  user: op\n  proxyJump: bastion:65535')).cluster.ssh.proxyJump, {
    user: 'op',
    host: 'bastion',
    port: 65535,
  });
});

test('storage paths: / stays /, trailing slashes go however many', () => {
  const c = configOf(replaced(CLUSTER, '      - { path: /models, kind: local }', '      - { path: /, kind: local }\n      - { path: /models//, kind: local }'));
  assert.equal(c.cluster.nodes[0]!.storage, [
    { path: '/', kind: 'local' },
    { path: '/models', kind: 'local' },
  ]);
});

test('weights may end in a slash or hold ./; only the storage path itself is refused', () => {
  assert.equal(errorsOf(CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: meta/Llama-3.1-8B/')), []);
  assert.equal(errorsOf(CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: org/./m')), []);
  assert.equal(errorsOf(CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: ./')), [
    'models.yaml:5:14: models[0].weights: must be a directory under a storage path, not the storage path itself',
  ]);
});

test("a webhook's secret and a model's gpuClass are kept as written", () => {
  const c = configOf(
    replaced(CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - { url: "https://hooks.example/x", secret: s3cret }'),
    replaced(MODELS, 'gpus: 1', 'gpus: 1\n    gpuClass: H100'),
  );
  assert.equal(c.cluster.notify.webhooks, [{ url: 'https://hooks.example/x', secret: 's3cret' }]);
  assert.is(c.models[0]!.gpuClass, 'H100');
  assert.not.ok('gpuClass' in configOf(CLUSTER).models[0]!, 'no gpuClass written, none kept');
});

test('gpuClasses merged in with << follow the ones written, and the merge key is not a class', () => {
  const c = configOf(replaced(CLUSTER, 'name: test', 'name: test\ngpuClasses:\n  <<: { A100: "*A100*" }\n  H100: "*H100*"'));
  assert.equal(c.cluster.gpuClasses, [
    { name: 'H100', glob: '*H100*' },
    { name: 'A100', glob: '*A100*' },
  ]);
});

test('~/ in ssh paths is HOME, with or without its trailing slash', () => {
  for (const home of ['/home/op/', '/home/op']) {
    const c = configOf(replaced(CLUSTER, 'name: test', 'name: test\nssh: { identityFile: "~/.ssh/id", knownHosts: "~/kh" }'), MODELS, { HOME: home });
    assert.equal([c.cluster.ssh.identityFile, c.cluster.ssh.knownHosts], ['/home/op/.ssh/id', '/home/op/kh'], home);
  }
});

test('a variable unset twice in one value is one warning, not two', () => {
  const r = parse(replaced(CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - url: "https://h.example/${HOOK}/${HOOK}"'), MODELS);
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:6:12: notify.webhooks[0].url: environment variable HOOK is not set']);
});

test('GPU class names: padding and doubled spaces in the product name do not matter; a nameless GPU is "unknown"', () => {
  assert.is(gpuClassOf('  NVIDIA H100 80GB HBM3  ', []), 'H100');
  assert.is(gpuClassOf('NVIDIA  H100 80GB HBM3', []), 'H100');
  assert.is(gpuClassOf('   ', []), 'unknown');
  assert.is(gpuClassOf('NVIDIA H100\nPCIe', [{ name: 'hopper', glob: 'NVIDIA H100*' }]), 'hopper', 'a glob matches across a line break');
});

test('loadConfig uses the environment it is given, and says why a file cannot be read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-load-'));
  try {
    writeFileSync(join(dir, 'cluster.yaml'), replaced(CLUSTER, 'name: test', 'name: test\nssh: { identityFile: "~/.ssh/id" }'));
    writeFileSync(join(dir, 'models.yaml'), MODELS);
    const r = await loadConfig(dir, { env: { HOME: '/home/given' } });
    assert.ok(r.ok);
    if (r.ok) assert.is(r.config.cluster.ssh.identityFile, '/home/given/.ssh/id');

    rmSync(join(dir, 'models.yaml'));
    mkdirSync(join(dir, 'models.yaml'));
    const asDir = await loadConfig(dir, { env: {}, displayDir: 'repo' });
    assert.equal(asDir.ok ? [] : asDir.errors.map(formatProblem), ['repo/models.yaml:1:1: is a directory, not a file']);

    const notADir = join(dir, 'cluster.yaml');
    const r2 = await loadConfig(notADir, { env: {}, displayDir: 'file' });
    assert.equal(r2.ok ? [] : r2.errors.map(formatProblem), ['file/cluster.yaml:1:1: no such file', 'file/models.yaml:1:1: no such file']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
