// Golden files: the committed STATUS.md of each example and its status JSON.
// LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { golden } from '../helpers/golden.js';
import { exampleStatus } from './cli-helpers.js';

for (const example of ['demo', 'large']) {
  test(`examples/${example}: --format markdown is the committed STATUS.md`, async () => {
    const r = await exampleStatus(example, '--format', 'markdown');
    assert.is(r.code, 0, r.err);
    golden(`examples/${example}/STATUS.md`, r.out);
  });

  test(`examples/${example}: --json is the golden status JSON`, async () => {
    const r = await exampleStatus(example, '--json');
    assert.is(r.code, 0, r.err);
    golden(`test/status/golden/${example}.json`, r.out);
  });

  test(`examples/${example}: plain text is the golden terminal output`, async () => {
    const r = await exampleStatus(example);
    assert.is(r.code, 0, r.err);
    golden(`test/status/golden/${example}.txt`, r.out);
  });
}

test('examples/demo shows every case: idle, unknown idleness, unhealthy, unreachable, lost, local and shared holdings', async () => {
  const report = JSON.parse((await exampleStatus('demo', '--json')).out);
  assert.equal(report.idle.map((i: { replica: string }) => i.replica), ['llama-3.1-8b-1', 'qwen2.5-72b-0']);
  assert.ok(report.replicas.some((r: { state: string; idleSeconds: number }) => r.state === 'running' && r.idleSeconds === -1));
  assert.is(report.capacity.find((c: { class: string }) => c.class === 'H100').unhealthy, 1);
  assert.equal(report.nodes.unreachable, [{ node: 'gpu-a04', since: '2026-11-29T07:56:00Z', reason: 'timeout', error: 'gpu-a04: connect ETIMEDOUT' }]);
  assert.equal(report.nodes.lost, [{ node: 'gpu-b04', since: '2026-11-29T07:30:00Z', reason: 'network', error: 'gpu-b04: connect EHOSTUNREACH' }]);
  const llama = report.holdings.find((h: { fabric: string; model: string }) => h.fabric === 'ib-a' && h.model === 'llama-3.1-70b');
  assert.equal([llama.shared, llama.localNodes], [['lustre-a'], ['gpu-a01']]);
});

test('rendering the large example twice gives byte-identical STATUS.md', async () => {
  const a = await exampleStatus('large', '--format', 'markdown');
  const b = await exampleStatus('large', '--format', 'markdown');
  assert.is(a.out, b.out);
});

test.run();
