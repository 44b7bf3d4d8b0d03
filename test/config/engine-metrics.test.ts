// cluster.yaml `engines.<name>.metrics` (docs/config.md#engines): optional; each key
// defaults to vLLM's name (the whole entry too), false turns it off; a misspelt key or a name Prometheus would not allow is one problem.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../src/errors.js';
import { CLUSTER, MODELS, parsePair } from '../fixtures/index.js';

/** CLUSTER with `extra` in its one engine's entry (CLUSTER ends inside `engines.vllm`). */
const load = (extra: string) => parsePair(CLUSTER + extra, MODELS);

const VLLM = {
  path: '/metrics',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  progress: 'vllm:generation_tokens_total',
};

/** The engine's metrics entry as read, from a cluster.yaml that must be valid. */
function metricsOf(extra: string) {
  const r = load(extra);
  assert.ok(r.ok, extra);
  return r.config.cluster.engines.vllm!.metrics;
}

test("an engine that writes no metrics reads vLLM's; metrics: false reads none", () => {
  assert.equal(metricsOf(''), VLLM);
  assert.is(metricsOf('    metrics: false\n'), undefined);
  assert.not.ok(load('    metrics: true\n').ok, 'true is not an entry');
});

test("metrics: {} is vLLM's names at /metrics; keys given replace only themselves (SGLang's names)", () => {
  assert.equal(metricsOf('    metrics: {}\n'), VLLM);
  assert.equal(
    metricsOf('    metrics: { running: "sglang:num_running_reqs", waiting: "sglang:num_queue_reqs", progress: "sglang:generation_tokens_total" }\n'),
    {
      ...VLLM,
      running: 'sglang:num_running_reqs',
      waiting: 'sglang:num_queue_reqs',
      progress: 'sglang:generation_tokens_total',
    },
  );
});

test('a misspelt key, a path without its slash and a name that is not a Prometheus name are each one line', () => {
  const r = load('    metrics: { path: metrics, runing: x, progress: "tokens total" }\n');
  assert.not.ok(r.ok);
  if (!r.ok) {
    const lines = r.errors.map(formatProblem);
    assert.is(lines.length, 3, lines.join('\n'));
    const expected: [what: string, found: (line: string) => boolean][] = [
      ['the path', (l) => l.startsWith('cluster.yaml:') && l.includes('engines.vllm.metrics.path')],
      ['the misspelt key', (l) => l.includes('engines.vllm.metrics') && l.includes("'runing'")],
      ['the name', (l) => l.includes('engines.vllm.metrics.progress')],
    ];
    for (const [what, found] of expected) assert.ok(lines.some(found), `${what}: ${lines.join('\n')}`);
  }
});

test.run();
