// The nodes that need a look (docs/status.md), one row each, checked on small
// hand-built reports: lost, then unreachable, then nodes with unhealthy GPUs,
// then cordoned nodes not named yet; a cordoned node is marked wherever it
// shows, and never shows twice; the agent's GPU reasons are joined with "; "
// and clipped to 80 characters.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attentionNodes, type NodeRow } from '../../../src/views/status/node-rows.js';
import type { NodeSince, StatusReport, UnhealthyGpu } from '../../../src/status/types.js';
import { blankReport } from '../../status/blank-report.js';

function reportOf(parts: { lost?: NodeSince[]; unreachable?: NodeSince[]; cordoned?: string[]; unhealthy?: UnhealthyGpu[] }): StatusReport {
  return blankReport({
    nodes: { unreachable: parts.unreachable ?? [], lost: parts.lost ?? [], cordoned: (parts.cordoned ?? []).map((node) => ({ node })) },
    unhealthyGpus: parts.unhealthy ?? [],
  });
}

const gpu = (node: string, index: number, reason: string | null = null): UnhealthyGpu => ({ node, index, class: 'h100', reason });
const since = (node: string, reason: NodeSince['reason'], at: string | null, error: string | null): NodeSince => ({ node, reason, since: at, error });

function row(node: string, condition: NodeRow['condition'], more: Partial<NodeRow> = {}): NodeRow {
  return { node, condition, cordoned: false, reason: null, since: null, error: null, gpus: null, ...more };
}

test('node rows: lost, unreachable, unhealthy GPUs, cordoned, in that order, each with its own fields', () => {
  const r = reportOf({
    lost: [since('l1', 'timeout', '2026-11-29T07:00:00Z', 'ssh: connect timed out')],
    unreachable: [since('u1', 'refused', null, null)],
    unhealthy: [gpu('g1', 3, 'XID 79')],
    cordoned: ['k1'],
  });
  assert.equal(attentionNodes(r), [
    row('l1', 'lost', { reason: 'timeout', since: '2026-11-29T07:00:00Z', error: 'ssh: connect timed out' }),
    row('u1', 'unreachable', { reason: 'refused' }),
    row('g1', 'reachable', { gpus: '3 (XID 79)' }),
    row('k1', 'cordoned', { cordoned: true }),
  ]);
});

test('node rows: a cordoned node that is lost or unreachable keeps its condition, is marked cordoned, and gets no second row', () => {
  const r = reportOf({
    lost: [since('l1', 'network', null, null)],
    unreachable: [since('u1', 'auth', null, 'Permission denied')],
    cordoned: ['l1', 'u1'],
  });
  assert.equal(attentionNodes(r), [
    row('l1', 'lost', { cordoned: true, reason: 'network' }),
    row('u1', 'unreachable', { cordoned: true, reason: 'auth', error: 'Permission denied' }),
  ]);
});

test('node rows: a reachable cordoned node with unhealthy GPUs shows once, its condition "cordoned", with its GPUs', () => {
  const r = reportOf({ unhealthy: [gpu('g1', 1), gpu('g1', 4), gpu('g1', 5)], cordoned: ['g1'] });
  assert.equal(attentionNodes(r), [row('g1', 'cordoned', { cordoned: true, gpus: '[1,4-5]' })]);
});

test('node rows: a node with unhealthy GPUs that is not cordoned is "reachable", not cordoned; no reasons, no parenthesis', () => {
  const r = reportOf({ unhealthy: [gpu('g2', 0), gpu('g2', 1)], cordoned: ['k9'] });
  assert.equal(attentionNodes(r), [row('g2', 'reachable', { gpus: '[0-1]' }), row('k9', 'cordoned', { cordoned: true })]);
});

test('node rows: distinct GPU reasons of a node are joined with "; " in GPU order', () => {
  const r = reportOf({ unhealthy: [gpu('g1', 0, 'XID 79'), gpu('g1', 2, 'ECC errors'), gpu('g1', 3, 'XID 79')] });
  assert.equal(attentionNodes(r)[0]!.gpus, '[0,2-3] (XID 79; ECC errors)');
});

test('node rows: GPU reasons of exactly 80 characters are shown whole', () => {
  const reason = 'x'.repeat(80);
  const r = reportOf({ unhealthy: [gpu('g1', 0, reason)] });
  assert.equal(attentionNodes(r)[0]!.gpus, `0 (${reason})`);
});

test('node rows: GPU reasons longer than 80 characters are clipped to 79 and an ellipsis', () => {
  const reason = `${'a'.repeat(79)}bcdef`;
  const r = reportOf({ unhealthy: [gpu('g1', 0, reason)] });
  const gpus = attentionNodes(r)[0]!.gpus;
  assert.equal(gpus, `0 (${'a'.repeat(79)}…)`);
  assert.is(gpus!.length, '0 ('.length + 80 + ')'.length);
});

test('node rows: 81 characters of reasons, joined from two, are clipped too', () => {
  const a = 'p'.repeat(40);
  const b = 'q'.repeat(39);
  const r = reportOf({ unhealthy: [gpu('g1', 6, a), gpu('g1', 7, b)] });
  // `${a}; ${b}` is 81 characters long.
  assert.equal(attentionNodes(r)[0]!.gpus, `[6-7] (${a}; ${'q'.repeat(37)}…)`);
});

test('node rows: nothing lost, unreachable, unhealthy or cordoned, no row', () => {
  assert.equal(attentionNodes(reportOf({})), []);
});

test.run();
