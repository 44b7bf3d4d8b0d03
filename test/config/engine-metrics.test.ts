// cluster.yaml `engines.<name>.metrics` (docs/config.md#engines): optional; each key
// defaults to vLLM's name (the whole entry too), false turns it off; a misspelt key or a name Prometheus would not allow is one problem.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';

const cluster = (engineExtra: string) => `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - name: gpu-a[01-02]
    fabric: ib-a
engines:
  vllm:
    command: [vllm, serve]
${engineExtra}`;
const MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - name: m\n    weights: org/m\n    engine: vllm\n    gpus: 1\n';

function load(extra: string) {
  return parseConfig({ cluster: { name: 'cluster.yaml', text: cluster(extra) }, models: { name: 'models.yaml', text: MODELS } }, { env: { HOME: '/h' } });
}

const VLLM = {
  path: '/metrics',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  progress: 'vllm:generation_tokens_total',
};

test("an engine that writes no metrics reads vLLM's; metrics: false reads none", () => {
  const r = load('');
  assert.ok(r.ok);
  assert.equal(r.config.cluster.engines.vllm!.metrics, VLLM);
  const off = load('    metrics: false\n');
  assert.ok(off.ok);
  assert.is(off.config.cluster.engines.vllm!.metrics, undefined);
  const on = load('    metrics: true\n');
  assert.not.ok(on.ok, 'true is not an entry');
});

test("metrics: {} is vLLM's names at /metrics; keys given replace only themselves (SGLang's names)", () => {
  const r = load('    metrics: {}\n');
  assert.ok(r.ok);
  assert.equal(r.config.cluster.engines.vllm!.metrics, {
    path: '/metrics',
    running: 'vllm:num_requests_running',
    waiting: 'vllm:num_requests_waiting',
    progress: 'vllm:generation_tokens_total',
  });
  const s = load('    metrics: { running: "sglang:num_running_reqs", waiting: "sglang:num_queue_reqs", progress: "sglang:generation_tokens_total" }\n');
  assert.ok(s.ok);
  assert.equal(s.config.cluster.engines.vllm!.metrics, {
    path: '/metrics',
    running: 'sglang:num_running_reqs',
    waiting: 'sglang:num_queue_reqs',
    progress: 'sglang:generation_tokens_total',
  });
});

test('a misspelt key, a path without its slash and a name that is not a Prometheus name are each one line', () => {
  const r = load('    metrics: { path: metrics, runing: x, progress: "tokens total" }\n');
  assert.not.ok(r.ok);
  if (!r.ok) {
    const lines = r.errors.map(formatProblem);
    assert.is(lines.length, 3, lines.join('\n'));
    assert.ok(
      lines.some((l) => l.startsWith('cluster.yaml:') && l.includes('engines.vllm.metrics.path')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.includes('engines.vllm.metrics') && l.includes("'runing'")),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.includes('engines.vllm.metrics.progress')),
      lines.join('\n'),
    );
  }
});

test.run();
