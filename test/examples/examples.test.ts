import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { defined } from '../helpers/defined.js';

const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
const withConfig = readdirSync(examplesDir).filter((d) => existsSync(join(examplesDir, d, 'cluster.yaml')));
const env = {
  HOME: '/home/op',
  USER: 'op',
  LLMGW_WEBHOOK_URL: 'https://hooks.example/x',
  LLMGW_WEBHOOK_SECRET: 's',
  LLMGW_PAGER_URL: 'https://pager.example/y',
};

test('the examples with a config are demo and large at least', () => {
  assert.ok(withConfig.includes('demo') && withConfig.includes('large'), withConfig.join(','));
});

for (const name of withConfig) {
  test(`examples/${name} is a valid config`, async () => {
    const r = await loadConfig(join(examplesDir, name), { env, displayDir: `examples/${name}`, strictEnv: true });
    assert.equal(r.ok ? [] : r.errors.map(formatProblem), []);
  });
}

test('examples/demo: 2 fabrics, 8 nodes of H100 and H200 hosts, a router, 5 models, one on 2 nodes, one with priority, no webhooks', async () => {
  const r = await loadConfig(join(examplesDir, 'demo'), { env, displayDir: 'examples/demo' });
  assert.ok(r.ok);
  const { cluster, models } = r.config;
  assert.equal(cluster.fabrics, ['ib-a', 'ib-b']);
  assert.equal(
    cluster.nodes.map((n) => n.name),
    ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-b01', 'gpu-b02', 'gpu-b03', 'gpu-b04'],
  );
  assert.is(defined(cluster.nodes[0]).host, 'gpu-a01.ib-a.example');
  assert.equal(
    defined(cluster.nodes[0]).storage.map((s) => s.kind),
    ['local', 'shared'],
  );
  assert.equal(
    cluster.routers.map((x) => x.name),
    ['rt-1'],
  );
  assert.equal(Object.keys(cluster.engines), ['vllm']);
  assert.is(models.length, 5);
  assert.ok(models.some((m) => m.nodes === 2));
  assert.ok(models.some((m) => m.priority > 0));
  assert.equal(cluster.notify.webhooks, []);
  assert.equal(r.warnings.map(formatProblem), [
    'examples/demo/cluster.yaml:3:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody',
  ]);
});

test('examples/large: at least 256 nodes in 4 fabrics and 40 models of 1, 2, 4 and 8 GPUs, some on 2 nodes', async () => {
  const r = await loadConfig(join(examplesDir, 'large'), { env });
  assert.ok(r.ok);
  const { cluster, models } = r.config;
  assert.ok(cluster.nodes.length >= 256, String(cluster.nodes.length));
  assert.is(new Set(cluster.nodes.map((n) => n.fabric)).size, 4);
  assert.ok(models.length >= 40);
  assert.equal([...new Set(models.map((m) => m.gpus))].sort(), [1, 2, 4, 8]);
  assert.ok(models.filter((m) => m.nodes === 2).length >= 2);
});

test('examples/ci: on a pull request the workflow runs the action, which validates, plans against the base and comments', () => {
  const wf = parse(readFileSync(join(examplesDir, 'ci', 'llmgw-plan.yml'), 'utf8')) as {
    on: Record<string, unknown>;
    permissions: Record<string, string>;
    jobs: Record<string, { steps: { run?: string; uses?: string }[] }>;
  };
  assert.ok('pull_request' in wf.on);
  assert.is(wf.permissions['pull-requests'], 'write');
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
  assert.ok(
    steps.some((s) => /\/llmgw@v\d/.test(s.uses ?? '')),
    'the workflow uses the llmgw action',
  );
  const action = readFileSync(join(examplesDir, '..', 'action.yml'), 'utf8');
  assert.match(action, 'main.js" validate --repo');
  assert.match(action, 'main.js" plan --repo "$LLMGW_REPO" --base "$LLMGW_BASE_REF" --format markdown');
  assert.match(action, 'dist/src/ci/pr-comment.js');
});

test.run();
