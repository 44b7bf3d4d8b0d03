import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { MODELS, STORAGE_CLUSTER, TINY_CLUSTER as MINIMAL_CLUSTER, TINY_MODELS as MINIMAL_MODELS, replaced } from '../fixtures/index.js';

function load(cluster: string, models = MINIMAL_MODELS, env: Record<string, string> = { HOME: '/home/op', USER: 'op' }) {
  return parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } }, { env });
}

/** What every model that writes none of them gets (docs/config.md). */
const MODEL_DEFAULTS = {
  gpuMemoryUtilization: 0.9,
  spread: 'node',
  survive: 'none',
  drainTimeoutMs: 600_000,
  stopGraceMs: 30_000,
  liveness: { consecutiveErrors: 5, stallAfterMs: 60_000, ejectForMs: 30_000, replaceAfterMs: 120_000 },
  check: null,
  rollout: null,
};

test('every default of docs/config.md is filled in', () => {
  const r = load(MINIMAL_CLUSTER);
  assert.ok(r.ok);
  const c = r.config.cluster;
  assert.equal(c.ssh, {
    user: 'op',
    knownHosts: '/home/op/.ssh/known_hosts',
    port: 22,
    connectTimeoutMs: 10_000,
    commandTimeoutMs: 60_000,
    concurrency: 64,
    keepOpen: 4096,
  });
  assert.equal(c.agent, { command: 'llmgw agent' });
  assert.equal(c.router, { command: 'llmgw router' });
  assert.equal(c.nodes, [
    { name: 'n1', host: 'n1', port: 22, fabric: 'ib-a', cordon: false, storage: [] },
    { name: 'n2', host: 'n2', port: 22, fabric: 'ib-a', cordon: false, storage: [] },
  ]);
  assert.equal(c.routers, []);
  assert.equal(c.gpuClasses, []);
  assert.equal(c.engines.vllm, {
    name: 'vllm',
    command: ['vllm', 'serve'],
    basePort: 8000,
    health: '/health',
    startTimeoutMs: 1_200_000,
    metrics: { path: '/metrics', running: 'vllm:num_requests_running', waiting: 'vllm:num_requests_waiting', progress: 'vllm:generation_tokens_total' },
  });
  assert.equal(c.notify, { webhooks: [] });
  assert.is(c.idleAfterMs, 86_400_000);
  assert.is(c.lostAfterMs, 600_000);
  assert.equal(c.safety, { maxStopFraction: 0.5, minReachableFraction: 0.5 });
  assert.equal(c.git, { timeoutMs: 60_000 });
  assert.equal(c.quarantine, { durationMs: 86_400_000, release: [] });
  assert.equal(r.config.models, [
    {
      name: 'm',
      weights: 'org/m',
      engine: 'vllm',
      gpus: 2,
      nodes: 1,
      replicas: 1,
      priority: 0,
      args: [],
      index: 0,
      ...MODEL_DEFAULTS,
    },
  ]);
});

test('ssh.user defaults to the user llmgw runs as: USER, else LOGNAME, else the password database (never a guess of root)', () => {
  const user = (env: Record<string, string>) => {
    const r = load(MINIMAL_CLUSTER, MINIMAL_MODELS, { HOME: '/h', ...env });
    return r.ok ? r.config.cluster.ssh.user : undefined;
  };
  assert.is(user({ USER: 'op', LOGNAME: 'other' }), 'op');
  assert.is(user({ LOGNAME: 'other' }), 'other');
  assert.is(user({}), userInfo().username);
});

test('no webhooks is a warning, not an error', () => {
  const r = load(MINIMAL_CLUSTER);
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:1:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody']);
});

test('{name} in host, ports from ssh.port, ~ from HOME, proxyJump parsed, routers default to their name', () => {
  const cluster = MINIMAL_CLUSTER.replace(
    'name: tiny',
    `name: tiny
ssh:
  user: llmgw
  port: 2200
  identityFile: ~/.ssh/llmgw_ed25519
  knownHosts: /etc/ssh/known_hosts
  proxyJump: bastion.example
routers:
  - { name: rt-1 }
  - { name: rt-2, host: rt-2.example, port: 22 }`,
  ).replace('{ name: "n[1-2]", fabric: ib-a }', '{ name: "n[1-2]", host: "{name}.ib-a.example", fabric: ib-a, cordon: true }');
  const r = load(cluster);
  assert.ok(r.ok);
  const c = r.config.cluster;
  assert.is(c.ssh.identityFile, '/home/op/.ssh/llmgw_ed25519');
  assert.is(c.ssh.knownHosts, '/etc/ssh/known_hosts');
  assert.equal(c.ssh.proxyJump, { user: 'llmgw', host: 'bastion.example', port: 22 });
  assert.equal(c.nodes[1], { name: 'n2', host: 'n2.ib-a.example', port: 2200, fabric: 'ib-a', cordon: true, storage: [] });
  assert.equal(c.routers, [
    { name: 'rt-1', host: 'rt-1', port: 2200 },
    { name: 'rt-2', host: 'rt-2.example', port: 22 },
  ]);
});

test('proxyJump user@host:port gives all three', () => {
  const r = load(MINIMAL_CLUSTER.replace('name: tiny', 'name: tiny\nssh: { proxyJump: "ops@bastion.example:2222" }'));
  assert.ok(r.ok && r.config.cluster.ssh.proxyJump?.user === 'ops' && r.config.cluster.ssh.proxyJump.port === 2222);
});

test('${VAR} is substituted from the environment and the value never appears in a warning', () => {
  const cluster = MINIMAL_CLUSTER + 'notify:\n  webhooks:\n    - { url: "${HOOK}", secret: "${HOOK_SECRET}", events: [node.lost] }\n';
  const r = load(cluster, MINIMAL_MODELS, { HOME: '/h', HOOK: 'https://hooks.example/abc' });
  assert.ok(r.ok);
  assert.equal(
    r.config.cluster.notify.webhooks,
    [{ url: 'https://hooks.example/abc', urlVars: ['$HOOK'], events: ['node.lost'] }],
    'an unset secret is no secret, not an empty HMAC key',
  );
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:11:33: notify.webhooks[0].secret: environment variable HOOK_SECRET is not set']);
});

test('gpuClasses keep file order, so the first matching glob wins', () => {
  const r = load(MINIMAL_CLUSTER + 'gpuClasses:\n  H100-PCIe: "NVIDIA H100 PCIe*"\n  H100: "NVIDIA H100*"\n');
  assert.ok(r.ok);
  assert.equal(
    r.config.cluster.gpuClasses.map((g) => g.name),
    ['H100-PCIe', 'H100'],
  );
});

test('a class named with digits only keeps its place in the file too (a JS object would move it first)', () => {
  const r = load(MINIMAL_CLUSTER + 'gpuClasses:\n  H100: "NVIDIA H100*"\n  "4090": "*"\n');
  assert.ok(r.ok);
  assert.equal(r.config.cluster.gpuClasses, [
    { name: 'H100', glob: 'NVIDIA H100*' },
    { name: '4090', glob: '*' },
  ]);
});

test('models keep their file order as index, and models: [] is valid', () => {
  const two = MINIMAL_MODELS + '  - { name: z, weights: org/z, engine: vllm, gpus: 1, nodes: 2, replicas: 0, priority: 5, args: [--x] }\n';
  const r = load(MINIMAL_CLUSTER, two);
  assert.ok(r.ok);
  assert.equal(r.config.models[1], {
    name: 'z',
    weights: 'org/z',
    engine: 'vllm',
    gpus: 1,
    nodes: 2,
    replicas: 0,
    priority: 5,
    args: ['--x'],
    index: 1,
    ...MODEL_DEFAULTS,
  });
  const none = load(MINIMAL_CLUSTER, 'apiVersion: llmgw/v1\nkind: Models\nmodels: []\n');
  assert.ok(none.ok && none.config.models.length === 0);
});

test('storage paths lose a trailing slash; shared keeps its filer', () => {
  const r = load(
    MINIMAL_CLUSTER.replace(
      '{ name: "n[1-2]", fabric: ib-a }',
      '{ name: "n[1-2]", fabric: ib-a, storage: [{ path: /models/, kind: local }, { path: /lustre, kind: shared, filer: lus }] }',
    ),
  );
  assert.ok(r.ok);
  assert.equal(r.config.cluster.nodes[0]!.storage, [
    { path: '/models', kind: 'local' },
    { path: '/lustre', kind: 'shared', filer: 'lus' },
  ]);
});

test('loadConfig reads the repo and prints file names under displayDir; both missing files are reported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-load-'));
  try {
    const missing = await loadConfig(dir, { env: {}, displayDir: 'repo' });
    assert.equal(missing.ok ? [] : missing.errors.map(formatProblem), ['repo/cluster.yaml:1:1: no such file', 'repo/models.yaml:1:1: no such file']);
    writeFileSync(join(dir, 'cluster.yaml'), MINIMAL_CLUSTER);
    writeFileSync(join(dir, 'models.yaml'), MINIMAL_MODELS.replace('gpus: 2', 'gpus: two'));
    const bad = await loadConfig(dir, { env: {}, displayDir: '.' });
    assert.equal(bad.ok ? [] : bad.errors.map(formatProblem), ['models.yaml:4:52: models[0].gpus: must be integer']);
    writeFileSync(join(dir, 'models.yaml'), MINIMAL_MODELS);
    const good = await loadConfig(dir, { env: { HOME: '/h' } });
    assert.ok(good.ok);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a YAML alias without an anchor is an error at the alias, not a crash', () => {
  const r = load(MINIMAL_CLUSTER, MINIMAL_MODELS + '  - *other\n');
  assert.equal(r.ok ? [] : r.errors.map(formatProblem), ['models.yaml:5:5: an alias (*name) with no anchor (&name) before it']);
});

test('x- keys hold YAML anchors that node entries reuse with <<', () => {
  const cluster = MINIMAL_CLUSTER.replace(
    'nodes:\n  - { name: "n[1-2]", fabric: ib-a }',
    `x-gpu-node: &gpu-node
  fabric: ib-a
  storage: [{ path: /models, kind: local }]
nodes:
  - <<: *gpu-node
    name: "n[1-2]"
  - <<: *gpu-node
    name: m1
    cordon: true`,
  );
  const r = load(cluster);
  assert.equal(r.ok ? [] : r.errors.map(formatProblem), []);
  if (r.ok) {
    assert.equal(
      r.config.cluster.nodes.map((n) => [n.name, n.fabric, n.cordon, n.storage.length]),
      [
        ['n1', 'ib-a', false, 1],
        ['n2', 'ib-a', false, 1],
        ['m1', 'ib-a', true, 1],
      ],
    );
  }
});

test('a 100,000-node hostlist loads without trouble', () => {
  const r = load(MINIMAL_CLUSTER.replace('"n[1-2]"', '"n[000001-100000]"'));
  assert.ok(r.ok);
  assert.is(r.config.cluster.nodes.length, 100_000);
});

test('loadConfig uses the environment it is given, and says why a file cannot be read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-load-'));
  try {
    writeFileSync(join(dir, 'cluster.yaml'), replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nssh: { identityFile: "~/.ssh/id" }'));
    writeFileSync(join(dir, 'models.yaml'), MODELS);
    const r = await loadConfig(dir, { env: { HOME: '/home/given' } });
    assert.ok(r.ok);
    assert.is(r.config.cluster.ssh.identityFile, '/home/given/.ssh/id');

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
