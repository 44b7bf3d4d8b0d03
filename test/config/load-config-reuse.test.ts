// A steady `llmgw run` loads the same two files every tick: the same text is
// parsed and schema-checked once (src/config/load-config.ts). What comes out
// must be what a fresh parse gives: the environment is read on every load, a
// changed text is parsed again, and a load never changes what the next sees.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
fabrics: [a]
nodes: [{ name: "n[1-3]", fabric: a }]
engines: { vllm: { command: [vllm] } }
notify:
  webhooks:
    - url: "\${HOOK_URL}"
`;
const MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m, weights: org/m, engine: vllm, gpus: 1, replicas: 2 }\n';
const files = (cluster = CLUSTER, models = MODELS) => ({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } });

test('the same text loaded again gives the same config, each time with the environment of that load', () => {
  const a = parseConfig(files(), { env: { HOOK_URL: 'https://a.example/hook' } });
  const b = parseConfig(files(), { env: { HOOK_URL: 'https://b.example/hook' } });
  const again = parseConfig(files(), { env: { HOOK_URL: 'https://a.example/hook' } });
  if (!a.ok || !b.ok || !again.ok) return assert.unreachable('every load is valid');
  assert.equal(
    [a, b].map((r) => r.config.cluster.notify.webhooks.map((w) => w.url)),
    [['https://a.example/hook'], ['https://b.example/hook']],
  );
  assert.equal(again.config, a.config);
  assert.equal(
    a.config.cluster.nodes.map((n) => n.name),
    ['n1', 'n2', 'n3'],
  );
});

test('a changed text is parsed again: an error appears, and goes when the text is fixed', () => {
  const env = { HOOK_URL: 'https://a.example/hook' };
  assert.ok(parseConfig(files(), { env }).ok);
  const broken = parseConfig(files(CLUSTER, MODELS.replace('gpus: 1', 'gpus: lots')), { env });
  assert.is(broken.ok, false);
  if (broken.ok) return;
  assert.equal(broken.errors.map(formatProblem), [broken.errors.map(formatProblem)[0]]);
  assert.match(formatProblem(broken.errors[0]!), /^models\.yaml:4:\d+: models\[0\]\.gpus: /);
  const fixed = parseConfig(files(), { env });
  assert.ok(fixed.ok);
  // The same broken text again reports the same problem, not a remembered success.
  const twice = parseConfig(files(CLUSTER, MODELS.replace('gpus: 1', 'gpus: lots')), { env });
  assert.is(twice.ok, false);
  if (twice.ok) return;
  assert.equal(twice.errors.map(formatProblem), broken.errors.map(formatProblem));
});

test('the same text under another file name names that file in its problems', () => {
  const bad = MODELS.replace('gpus: 1', 'gpus: lots');
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text: CLUSTER }, models: { name: 'repo/models.yaml', text: bad } }, { env: {} });
  assert.is(r.ok, false);
  if (r.ok) return;
  assert.ok(r.errors.every((e) => e.file === 'repo/models.yaml' || e.file === 'cluster.yaml'));
  assert.ok(r.errors.some((e) => e.file === 'repo/models.yaml'));
});

test.run();
