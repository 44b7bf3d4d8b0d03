// Each invalid config names the exact `file:line:col: path: message` it must
// produce (docs/config.md). Texts are the kit's STORAGE_CLUSTER and MODELS
// (test/fixtures/config-yaml.ts) with one change.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MODELS, STORAGE_CLUSTER, problemsOf, replaced } from '../fixtures/index.js';

test('the base files are valid', () => {
  assert.equal(problemsOf(STORAGE_CLUSTER, MODELS), []);
});

type Case = [rule: string, file: 'cluster' | 'models', from: string, to: string, expected: string | string[]];

const CASES: Case[] = [
  [
    'a wrong apiVersion is reported at its value',
    'cluster',
    'apiVersion: llmgw/v1',
    'apiVersion: llmgw/v2',
    'cluster.yaml:1:13: apiVersion: must be "llmgw/v1"',
  ],
  ["cluster.yaml's kind must be Cluster", 'cluster', 'kind: Cluster', 'kind: Models', 'cluster.yaml:2:7: kind: must be "Cluster"'],
  [
    'a cluster name must be lowercase',
    'cluster',
    'name: test',
    'name: Test',
    'cluster.yaml:3:7: name: must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
  ],
  [
    'a missing top-level key is reported at the document',
    'cluster',
    'engines:\n  vllm:\n    command: [vllm, serve]\n',
    '',
    "cluster.yaml:1:1: missing required key 'engines'",
  ],
  [
    'an unknown key near a known one suggests it',
    'cluster',
    'fabrics: [ib-a, ib-b]',
    'fabrics: [ib-a, ib-b]\nfabirc: ib-a',
    "cluster.yaml:5:1: fabirc: unknown key 'fabirc' (did you mean 'fabrics'?)",
  ],
  [
    'an unknown key far from every known one suggests nothing',
    'cluster',
    'name: test',
    'name: test\ncolour: blue',
    "cluster.yaml:4:1: colour: unknown key 'colour'",
  ],
  [
    'an unknown key inside ssh is reported at the key',
    'cluster',
    'name: test',
    'name: test\nssh:\n  identity: ~/.ssh/id',
    "cluster.yaml:5:3: ssh.identity: unknown key 'identity' (did you mean 'identityFile'?)",
  ],
  ['an SSH port must be 1..65535', 'cluster', 'name: test', 'name: test\nssh: { port: 0 }', 'cluster.yaml:4:14: ssh.port: must be >= 1'],
  [
    'a malformed duration is an error at its value',
    'cluster',
    'name: test',
    'name: test\nssh:\n  connectTimeout: 10 s',
    'cluster.yaml:5:19: ssh.connectTimeout: must be a duration such as 90s, 10m, 6h, 2d or 1h30m',
  ],
  [
    'a timeout of 0s is an error (every host would fail at once)',
    'cluster',
    'name: test',
    'name: test\nssh:\n  commandTimeout: 0m0s',
    'cluster.yaml:5:19: ssh.commandTimeout: must be longer than 0s',
  ],
  [
    "an engine's startTimeout of 0s is an error",
    'cluster',
    'command: [vllm, serve]',
    'command: [vllm, serve]\n    startTimeout: 0s',
    'cluster.yaml:13:19: engines.vllm.startTimeout: must be longer than 0s',
  ],
  [
    'a timeout past what a timer can count is an error, not an instant timeout',
    'cluster',
    'name: test',
    'name: test\nssh:\n  connectTimeout: 30d',
    'cluster.yaml:5:19: ssh.connectTimeout: must be at most 24d',
  ],
  [
    'a duration too long to count is an error, never the default in silence',
    'cluster',
    'name: test',
    'name: test\nlostAfter: 99999999999999d',
    'cluster.yaml:4:12: lostAfter: is too long a duration',
  ],
  [
    'durations put the larger unit first',
    'cluster',
    'name: test',
    'name: test\nlostAfter: 30m1h',
    'cluster.yaml:4:12: lostAfter: must be a duration such as 90s, 10m, 6h, 2d or 1h30m',
  ],
  [
    'proxyJump must be user@host:port',
    'cluster',
    'name: test',
    'name: test\nssh: { proxyJump: "ops@@bastion" }',
    'cluster.yaml:4:19: ssh.proxyJump: must be user@host:port (user and port optional)',
  ],
  [
    'proxyJump names one bastion, not a list of them',
    'cluster',
    'name: test',
    'name: test\nssh: { proxyJump: "ops@b1,ops@b2" }',
    'cluster.yaml:4:19: ssh.proxyJump: must be user@host:port (user and port optional)',
  ],
  [
    'proxyJump is not an ssh:// URL',
    'cluster',
    'name: test',
    'name: test\nssh: { proxyJump: "ssh://ops@b1:22" }',
    'cluster.yaml:4:19: ssh.proxyJump: must be user@host:port (user and port optional)',
  ],
  [
    "proxyJump's port is a TCP port",
    'cluster',
    'name: test',
    'name: test\nssh: { proxyJump: "ops@b1:70000" }',
    'cluster.yaml:4:19: ssh.proxyJump: port 70000 is not a TCP port (1..65535)',
  ],
  [
    'a node on an undeclared fabric is an error with a suggestion',
    'cluster',
    '    fabric: ib-a',
    '    fabric: ib-c',
    "cluster.yaml:7:13: nodes[0].fabric: fabric 'ib-c' is not declared in fabrics (did you mean 'ib-a'?)",
  ],
  ['a node entry needs a fabric', 'cluster', '    fabric: ib-a\n', '', "cluster.yaml:6:5: nodes[0]: missing required key 'fabric'"],
  [
    'a malformed hostlist is an error, not a crash',
    'cluster',
    'gpu-a[01-02]',
    'gpu-a[02-01]',
    "cluster.yaml:6:11: nodes[0].name: malformed hostlist 'gpu-a[02-01]': range 02-01 runs backwards",
  ],
  [
    'an unclosed hostlist bracket is an error',
    'cluster',
    'gpu-a[01-02]',
    'gpu-a[01-02',
    "cluster.yaml:6:11: nodes[0].name: malformed hostlist 'gpu-a[01-02': unbalanced or nested brackets",
  ],
  [
    'two entries may not expand to the same name',
    'cluster',
    'engines:',
    '  - name: gpu-a[02-03]\n    fabric: ib-b\nengines:',
    "cluster.yaml:10:11: nodes[1].name: duplicate node name 'gpu-a02': already in nodes[0]",
  ],
  [
    'one hostlist may not name a node twice',
    'cluster',
    'gpu-a[01-02]',
    'gpu-a[01-02,02]',
    "cluster.yaml:6:11: nodes[0].name: duplicate node name 'gpu-a02': already earlier in this hostlist",
  ],
  [
    'a storage path declared twice on one node is an error (a trailing slash is the same path)',
    'cluster',
    '      - { path: /models, kind: local }',
    '      - { path: /models, kind: local }\n      - { path: /models/, kind: shared, filer: f }',
    "cluster.yaml:10:17: nodes[0].storage[1].path: storage path '/models' is declared twice on these nodes (also storage[0])",
  ],
  ['shared storage needs a filer', 'cluster', 'kind: local }', 'kind: shared }', "cluster.yaml:9:9: nodes[0].storage[0]: missing required key 'filer'"],
  [
    'a filer on local storage is an error',
    'cluster',
    'kind: local }',
    'kind: local, filer: lustre-a }',
    'cluster.yaml:9:39: nodes[0].storage[0].filer: a filer is only for shared storage',
  ],
  [
    'a storage kind is local or shared',
    'cluster',
    'kind: local }',
    'kind: nfs }',
    'cluster.yaml:9:32: nodes[0].storage[0].kind: must be one of "local", "shared"',
  ],
  ['a storage path is absolute', 'cluster', 'path: /models', 'path: models', 'cluster.yaml:9:17: nodes[0].storage[0].path: must be an absolute path'],
  ['cordon is true or false', 'cluster', '    fabric: ib-a', '    fabric: ib-a\n    cordon: "yes"', 'cluster.yaml:8:13: nodes[0].cordon: must be boolean'],
  ['a fabric is declared once', 'cluster', 'fabrics: [ib-a, ib-b]', 'fabrics: [ib-a, ib-b, ib-a]', 'cluster.yaml:4:23: fabrics[2]: duplicate of item 0'],
  [
    'router names are unique',
    'cluster',
    'engines:',
    'routers:\n  - { name: rt-1 }\n  - { name: rt-1, host: x }\nengines:',
    "cluster.yaml:12:13: routers[1].name: duplicate router name 'rt-1': already routers[0]",
  ],
  [
    'a router needs a name',
    'cluster',
    'engines:',
    'routers:\n  - { host: rt.example }\nengines:',
    "cluster.yaml:11:5: routers[0]: missing required key 'name'",
  ],
  [
    'an engine command has at least one element',
    'cluster',
    'command: [vllm, serve]',
    'command: []',
    'cluster.yaml:12:14: engines.vllm.command: must NOT have fewer than 1 items',
  ],
  [
    'an engine name follows the name rule, reported at the key',
    'cluster',
    '  vllm:',
    '  VLLM:',
    [
      'cluster.yaml:11:3: engines.VLLM: name \'VLLM\' must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
      "models.yaml:6:13: models[0].engine: engine 'vllm' is not declared in cluster.yaml engines (did you mean 'VLLM'?) (declared: VLLM)",
    ],
  ],
  [
    'an engine basePort is a port',
    'cluster',
    'command: [vllm, serve]',
    'command: [vllm, serve]\n    basePort: 70000',
    'cluster.yaml:13:15: engines.vllm.basePort: must be <= 65535',
  ],
  [
    'a health check is an HTTP path',
    'cluster',
    'command: [vllm, serve]',
    'command: [vllm, serve]\n    health: healthz',
    'cluster.yaml:13:13: engines.vllm.health: must be an HTTP path starting with /',
  ],
  [
    'a webhook event must be a known event',
    'cluster',
    'name: test',
    'name: test\nnotify:\n  webhooks:\n    - { url: "https://h.example/x", events: [node.lost, node.gone] }',
    'cluster.yaml:6:57: notify.webhooks[0].events[1]: must be one of "node.lost", "node.recovered", "model.down", "model.recovered", "model.unplaceable", "apply.failed", "config.invalid", "plan.blocked", "rollout.failed", "gpu.quarantined", "replica.stalled", "model.scaled"',
  ],
  [
    'a webhook url must be http(s), and the value is not repeated',
    'cluster',
    'name: test',
    'name: test\nnotify:\n  webhooks:\n    - url: "ftp://h.example/tok3n"',
    'cluster.yaml:6:12: notify.webhooks[0].url: must be an http:// or https:// URL',
  ],
  [
    'a webhook needs a url',
    'cluster',
    'name: test',
    'name: test\nnotify:\n  webhooks:\n    - events: [node.lost]',
    "cluster.yaml:6:7: notify.webhooks[0]: missing required key 'url'",
  ],
  [
    'a safety fraction is at most 1',
    'cluster',
    'name: test',
    'name: test\nsafety: { maxStopFraction: 1.5 }',
    'cluster.yaml:4:28: safety.maxStopFraction: must be <= 1',
  ],
  [
    'a class name in gpuClasses follows the class rule',
    'cluster',
    'name: test',
    'name: test\ngpuClasses:\n  "H 100": "NVIDIA H100*"',
    'cluster.yaml:5:3: gpuClasses["H 100"]: name \'H 100\' must be letters, digits, ".", "_" or "-", starting with a letter or digit',
  ],
  [
    'an engine command may use only the placeholders of docs/config.md',
    'cluster',
    'command: [vllm, serve]',
    'command: [vllm, serve, "{weightPath}"]',
    'cluster.yaml:12:28: engines.vllm.command[2]: unknown placeholder {weightPath} (did you mean {weightsPath}?)',
  ],
  [
    'a node host may use only {name}',
    'cluster',
    '    fabric: ib-a',
    '    host: "{nmae}.example"\n    fabric: ib-a',
    'cluster.yaml:7:11: nodes[0].host: unknown placeholder {nmae} (did you mean {name}?)',
  ],
  ["models.yaml's kind must be Models", 'models', 'kind: Models', 'kind: Cluster', 'models.yaml:2:7: kind: must be "Models"'],
  ['gpus must be at least 1', 'models', 'gpus: 1', 'gpus: 0', 'models.yaml:7:11: models[0].gpus: must be >= 1'],
  ['a missing key is reported at its parent', 'models', '    weights: org/m\n', '', "models.yaml:4:5: models[0]: missing required key 'weights'"],
  ['an empty value is reported at its key', 'models', 'gpus: 1', 'gpus:', 'models.yaml:7:5: models[0].gpus: must be integer'],
  [
    'an unknown model key suggests the close one',
    'models',
    'gpus: 1',
    'gpus: 1\n    replica: 2',
    "models.yaml:8:5: models[0].replica: unknown key 'replica' (did you mean 'replicas'?)",
  ],
  [
    'an undeclared engine is an error with a suggestion and the declared list',
    'models',
    'engine: vllm',
    'engine: vlm',
    "models.yaml:6:13: models[0].engine: engine 'vlm' is not declared in cluster.yaml engines (did you mean 'vllm'?) (declared: vllm)",
  ],
  [
    'weights stay under a storage path: no absolute path',
    'models',
    'weights: org/m',
    'weights: /srv/org/m',
    'models.yaml:5:14: models[0].weights: must be a relative directory under a storage path (no leading / and no ..)',
  ],
  [
    'weights name a directory under a storage path, not the path itself',
    'models',
    'weights: org/m',
    'weights: ./',
    'models.yaml:5:14: models[0].weights: must be a directory under a storage path, not the storage path itself',
  ],
  [
    'weights stay under a storage path: no ..',
    'models',
    'weights: org/m',
    'weights: org/../../etc',
    'models.yaml:5:14: models[0].weights: must be a relative directory under a storage path (no leading / and no ..)',
  ],
  ['replicas is never negative', 'models', 'gpus: 1', 'gpus: 1\n    replicas: -1', 'models.yaml:8:15: models[0].replicas: must be >= 0'],
  ['nodes is at least 1', 'models', 'gpus: 1', 'gpus: 1\n    nodes: 0', 'models.yaml:8:12: models[0].nodes: must be >= 1'],
  ['priority is a whole number', 'models', 'gpus: 1', 'gpus: 1\n    priority: 1.5', 'models.yaml:8:15: models[0].priority: must be integer'],
  ['args are strings', 'models', 'gpus: 1', 'gpus: 1\n    args: [--max-model-len, 32768]', 'models.yaml:8:29: models[0].args[1]: must be string'],
  [
    'model args may use only the placeholders of docs/config.md, and JSON braces are not placeholders',
    'models',
    'gpus: 1',
    'gpus: 1\n    args: [--port, "{prot}", --cfg, \'{"a":1}\']',
    'models.yaml:8:20: models[0].args[1]: unknown placeholder {prot} (did you mean {port}?)',
  ],
  [
    'a key written twice is a YAML error naming the key, at the second one',
    'models',
    'gpus: 1',
    'gpus: 1\n    gpus: 2',
    "models.yaml:8:5: duplicate key 'gpus': a key may appear once in a mapping",
  ],
  [
    'a second YAML document is an error at its ---',
    'models',
    'gpus: 1\n',
    'gpus: 1\n---\nmodels: []\n',
    'models.yaml:8:1: a second document (after ---): the file must hold one',
  ],
  [
    'a tab used as indentation is an error at its line',
    'models',
    '    gpus: 1',
    '\tgpus: 1',
    'models.yaml:7:1: tab used for indentation: YAML indents with spaces only',
  ],
  [
    'models is a list',
    'models',
    'models:\n  - name: m\n    weights: org/m\n    engine: vllm\n    gpus: 1\n',
    'models: {}\n',
    'models.yaml:3:9: models: must be array',
  ],
  [
    'a model name follows the name rule',
    'models',
    'name: m',
    'name: Llama 3',
    'models.yaml:4:11: models[0].name: must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
  ],
  [
    'model names are unique',
    'models',
    'gpus: 1\n',
    'gpus: 1\n  - { name: m, weights: x, engine: vllm, gpus: 2 }\n',
    "models.yaml:8:13: models[1].name: duplicate model name 'm': already models[0]",
  ],
  // Keys left empty or of the wrong type are one clear problem each, never an internal error.
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
    const cluster = file === 'cluster' ? replaced(STORAGE_CLUSTER, from, to) : STORAGE_CLUSTER;
    const models = file === 'models' ? replaced(MODELS, from, to) : MODELS;
    assert.equal(problemsOf(cluster, models), Array.isArray(expected) ? expected : [expected]);
  });
}

test('an unset ${VAR} is an error when env is strict (reconcile), naming only the variable', () => {
  const cluster = replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - url: ${HOOK_URL}');
  assert.equal(problemsOf(cluster, MODELS, { strictEnv: true }), ['cluster.yaml:6:12: notify.webhooks[0].url: environment variable HOOK_URL is not set']);
  assert.equal(problemsOf(cluster, MODELS, { strictEnv: false }), []);
});

test('a value from ${VAR} is checked after substitution, naming the variable and never the value', () => {
  const key = replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nssh:\n  identityFile: ${LLMGW_KEY}');
  assert.equal(problemsOf(key, MODELS, { env: { LLMGW_KEY: 'keys/s3cret-id' } }), [
    'cluster.yaml:5:17: ssh.identityFile: must be an absolute path or start with ~/ (after substituting ${LLMGW_KEY})',
  ]);
  assert.equal(problemsOf(key, MODELS, { env: { LLMGW_KEY: '/etc/llmgw/id' } }), []);
  const hook = replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - url: ${HOOK}');
  assert.equal(problemsOf(hook, MODELS, { env: { HOOK: 'ftp://hooks.example/T0K3N' } }), [
    'cluster.yaml:6:12: notify.webhooks[0].url: must be an http:// or https:// URL (after substituting ${HOOK})',
  ]);
});

test('a config with several mistakes in both files reports every one, each at its line, cluster.yaml first', () => {
  const cluster = replaced(replaced(STORAGE_CLUSTER, '    fabric: ib-a', '    fabric: ib-z'), 'name: test', 'name: test\nlostAfter: soon');
  const models = MODELS + '  - name: big\n    weights: org/big\n    engine: sglang\n    gpus: 0\n    nodes: 2\n    priorty: 3\n';
  assert.equal(problemsOf(cluster, models), [
    'cluster.yaml:4:12: lostAfter: must be a duration such as 90s, 10m, 6h, 2d or 1h30m',
    "cluster.yaml:8:13: nodes[0].fabric: fabric 'ib-z' is not declared in fabrics (did you mean 'ib-a'?)",
    "models.yaml:10:13: models[1].engine: engine 'sglang' is not declared in cluster.yaml engines (declared: vllm)",
    'models.yaml:11:11: models[1].gpus: must be >= 1',
    "models.yaml:13:5: models[1].priorty: unknown key 'priorty' (did you mean 'priority'?)",
  ]);
});

test('when cluster.yaml cannot be parsed, models.yaml is still checked on its own', () => {
  assert.equal(problemsOf('', replaced(MODELS, 'gpus: 1', 'gpus: -2')), [
    'cluster.yaml:1:1: the file is empty; expected a mapping with apiVersion: llmgw/v1 and kind: Cluster',
    'models.yaml:7:11: models[0].gpus: must be >= 1',
  ]);
});

test.run();
