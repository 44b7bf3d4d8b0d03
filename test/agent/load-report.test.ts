// `agent report` reads each replica's engine metrics and reports its load and
// stall (docs/protocol.md#engine-progress), against a real stub engine process; the
// report's clock is injected, so "60 s without progress" takes no 60 s.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { report } from '../../src/agent/report.js';
import type { EngineMetricsEntry } from '../../src/types/snapshot.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);
const VLLM: EngineMetricsEntry = {
  path: '/metrics',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  progress: 'vllm:generation_tokens_total',
};
const REQ = { version: 1 as const, node: 'n1', storage: [], weights: [] };

const loadAt = async (id: string, at: Date) => (await report(REQ, node.env, () => at)).replicas.find((r) => r.id === id);

test('a replica that keeps running requests with no new tokens for stallAfter is reported stalledSince, though /health says 200', async () => {
  const port = await freePort();
  const start = stubStart('hang-0', port);
  const reply = await node.apply([{ ...start, command: [...start.command, '--stall-after-tokens', '2'], metrics: VLLM, stallAfterSeconds: 60 }]);
  assert.equal(reply.results, [{ replica: 'hang-0', op: 'start', ok: true }]);
  assert.ok(await waitFor(async () => (await node.stateOf('hang-0')) === 'running'));

  const t0 = new Date(Date.now() + 1000);
  const idle = await loadAt('hang-0', t0);
  assert.equal(idle?.load, { running: 0, waiting: 0, progress: 0 });

  const ctl = new AbortController();
  const pending = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'hang', stream: true, max_tokens: 10, messages: [] }),
    signal: ctl.signal,
  }).then(
    (r) => r.text().catch(() => ''),
    () => '',
  );
  const t1 = new Date(t0.getTime() + 10_000);
  assert.ok(await waitFor(async () => (await loadAt('hang-0', t1))?.load?.running === 1));
  const first = await loadAt('hang-0', t1);
  assert.equal([first?.state, first?.load], ['running', { running: 1, waiting: 0, progress: 2 }]);

  const later = await loadAt('hang-0', new Date(t1.getTime() + 59_000));
  assert.equal(later?.load, { running: 1, waiting: 0, progress: 2 }, 'not yet: 59 s');
  const stalled = await loadAt('hang-0', new Date(t1.getTime() + 75_000));
  assert.equal(
    [stalled?.state, stalled?.load],
    ['running', { running: 1, waiting: 0, progress: 2, stalledSince: new Date(t1.getTime() + 60_000).toISOString() }],
  );
  const again = await loadAt('hang-0', new Date(t1.getTime() + 120_000));
  assert.is(again?.load?.stalledSince, stalled?.load?.stalledSince, 'the same since-time in every report of one stall');

  // The last sample is in the state directory, for the next report's process.
  const kept = JSON.parse(await readFile(join(node.env.LLMGW_STATE_DIR!, 'load', 'hang-0.json'), 'utf8'));
  assert.equal([kept.sample, kept.movedAt], [{ running: 1, waiting: 0, progress: 2 }, t1.toISOString()]);

  ctl.abort();
  await pending;
  const t2 = new Date(t1.getTime() + 130_000);
  assert.ok(await waitFor(async () => (await loadAt('hang-0', t2))?.load?.running === 0));
  assert.equal((await loadAt('hang-0', t2))?.load, { running: 0, waiting: 0, progress: 2 }, 'nothing running: not stalled');
  await node.apply([], ['hang-0']);
});

test('a replica started without a metrics entry reports no load; one whose page lacks the names says so in a warning', async () => {
  const port = await freePort();
  const plain = stubStart('plain-0', port);
  const other = stubStart('other-0', await freePort());
  await node.apply([plain, { ...other, metrics: { ...VLLM, running: 'sglang:num_running_reqs' } }]);
  assert.ok(await waitFor(async () => (await node.stateOf('plain-0')) === 'running' && (await node.stateOf('other-0')) === 'running'));
  const r = await report(REQ, node.env);
  assert.equal(
    r.replicas.map((x) => [x.id, x.load]),
    [
      ['other-0', undefined],
      ['plain-0', undefined],
    ],
  );
  assert.ok(r.warnings.includes('metrics of other-0 lack sglang:num_running_reqs'), r.warnings.join('\n'));
  await node.apply([], ['plain-0', 'other-0']);
});

test('an engine without the page (404) has no load and no warning: not every engine serves metrics', async () => {
  const none = stubStart('none-0', await freePort());
  await node.apply([{ ...none, metrics: { ...VLLM, path: '/no-such-page' } }]);
  assert.ok(await waitFor(async () => (await node.stateOf('none-0')) === 'running'));
  const r = await report(REQ, node.env);
  assert.equal(
    r.replicas.map((x) => [x.id, x.load]),
    [['none-0', undefined]],
  );
  assert.equal(r.warnings, []);
  await node.apply([], ['none-0']);
});

test.run();
