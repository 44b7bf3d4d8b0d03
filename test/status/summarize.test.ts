import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_WEBHOOK_WARNING, summarize } from '../../src/status/index.js';
import { sampleFleet, W70, W8 } from './sample.js';
import { defined } from '../helpers/defined.js';

const unplaceable = [{ model: 'llama-70b', missing: 1, reason: 'needs 4 free H100 GPUs on one node' }];

test('capacity per class: each GPU in exactly one bucket, total their sum', () => {
  const r = summarize(sampleFleet(), []);
  assert.equal(r.capacity, [
    { class: 'H100', total: 32, used: 5, free: 10, unhealthy: 1, other: 0, unreachable: 8, cordoned: 8 },
    { class: 'H200', total: 8, used: 1, free: 7, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0 },
  ]);
});

test('fabrics count nodes, reachable ones and free whole nodes per class (zero included)', () => {
  const r = summarize(sampleFleet(), []);
  assert.equal(r.fabrics, [
    { name: 'ib-a', nodes: 4, reachable: 3, freeWholeNodes: { H100: 0 } },
    { name: 'ib-b', nodes: 2, reachable: 1, freeWholeNodes: { H200: 0 } },
  ]);
});

test('holdings: one row per fabric and desired model; a filer once, local copies by node', () => {
  const r = summarize(sampleFleet(), []);
  assert.equal(r.holdings, [
    { fabric: 'ib-a', model: 'llama-70b', weights: W70, held: true, shared: [], localNodes: ['a1'] },
    { fabric: 'ib-a', model: 'llama-8b', weights: W8, held: true, shared: ['lustre-a'], localNodes: [] },
    { fabric: 'ib-b', model: 'llama-70b', weights: W70, held: false, shared: [], localNodes: [] },
    { fabric: 'ib-b', model: 'llama-8b', weights: W8, held: true, shared: [], localNodes: ['b1'] },
  ]);
});

test('idle lists only replicas known unused for idle.after; unknown is -1 and null, never zero', () => {
  const r = summarize(sampleFleet(), []);
  assert.equal(r.idle, [{ replica: 'llama-70b-0', model: 'llama-70b', nodes: ['a1'], idleSeconds: 3 * 86400 + 8 * 3600, idleSince: '2026-11-26T00:00:00Z' }]);
  const byId = Object.fromEntries(r.replicas.map((x) => [x.id, x]));
  assert.equal([defined(byId['llama-8b-0']).idleSeconds, defined(byId['llama-8b-0']).idleSince], [60, '2026-11-29T07:59:00Z']);
  assert.equal([defined(byId['llama-8b-1']).idleSeconds, defined(byId['llama-8b-1']).idleSince], [-1, null]);
  assert.equal([defined(byId['llama-70b-1']).idleSeconds, defined(byId['llama-70b-1']).idleSince], [-1, null]);
});

test('models count desired and each replica state; nodes list unreachable, lost and cordoned', () => {
  const r = summarize(sampleFleet(), unplaceable);
  assert.equal(r.models, [
    { name: 'llama-70b', desired: 2, running: 1, starting: 1, failed: 0 },
    { name: 'llama-8b', desired: 2, running: 2, starting: 0, failed: 0 },
  ]);
  assert.equal(r.nodes, {
    unreachable: [{ node: 'a4', since: '2026-11-29T07:55:00Z', reason: 'timeout', error: 'connect ETIMEDOUT' }],
    lost: [{ node: 'b2', since: null, reason: 'unknown', error: 'not in the snapshot' }],
    cordoned: [{ node: 'a3' }],
  });
  assert.equal(r.unplaceable, unplaceable);
});

test('without webhooks notify carries the warning; with one it is null and the URL appears nowhere', () => {
  assert.equal(summarize(sampleFleet(), []).notify, { webhooks: 0, warning: NO_WEBHOOK_WARNING });
  const withHook = summarize(sampleFleet({ webhooks: true }), []);
  assert.equal(withHook.notify, { webhooks: 1, warning: null });
  const text = JSON.stringify(withHook);
  assert.not.ok(text.includes('SECRET-TOKEN') || text.includes('hunter2') || text.includes('hooks.example'));
});

test('the status JSON has docs/commands.md keys in order', () => {
  const r = summarize(sampleFleet(), unplaceable);
  // The keys of docs/commands.md first, in their order; what docs/status.md adds after them.
  assert.equal(Object.keys(r), [
    'version',
    'cluster',
    'observedAt',
    'capacity',
    'fabrics',
    'holdings',
    'models',
    'replicas',
    'unplaceable',
    'blocked',
    'idle',
    'nodes',
    'notify',
    'unhealthyGpus',
    'duplicates',
    'fit',
    'fitWarnings',
    'survive',
    'surviveWarnings',
    'attention',
    'endpointWarnings',
  ]);
  assert.equal(Object.keys(defined(r.capacity[0])), ['class', 'total', 'used', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned']);
  assert.equal(Object.keys(defined(r.replicas[0])), ['id', 'model', 'nodes', 'state', 'idleSeconds', 'idleSince', 'error']);
  assert.equal(Object.keys(defined(r.nodes.unreachable[0])), ['node', 'since', 'reason', 'error']);
});

test.run();
