// The status report's quarantined GPUs, a replica's application Xids and its
// idle rows (docs/status.md, docs/placement.md#quarantined-gpus), each held by
// the value it must have: kept apart from the golden cases so that a wrong
// order, a missing field or a lost filter shows as one failing assertion.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { summarize, withAttention } from '../../src/status/index.js';
import type { QuarantinedGpu, StatusFacts } from '../../src/status/types.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { QuarantineRecord } from '../../src/types/state.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';
import { quietFleet } from './fleets.js';

const QUIET = summarize(quietFleet(), []);

function attentionOf(facts: Partial<StatusFacts>) {
  return withAttention({ ...QUIET, ...facts }).attention;
}

const rec = (node: string, index: number, code = 79): QuarantineRecord => ({
  node,
  index,
  code,
  reason: `Xid ${code}`,
  since: '2026-11-29T07:00:00Z',
  until: '2026-11-30T07:00:00Z',
});

test('quarantinedGpus: one row per quarantined GPU with exactly its six fields, sorted by node and then by index as a number', () => {
  // Records in an order that is neither by node nor by index, indices that sort differently as strings (10 < 3), extra keys that must not leak.
  const records = [rec('b1', 3), rec('a1', 10), rec('c1', 0), rec('a1', 3), rec('b1', 0), rec('a1', 0), rec('c1', 12), rec('a2', 7)];
  const quarantine = Object.fromEntries(records.map((r) => [`${r.node}:${r.index}`, { ...r, extra: 'not copied' }]));
  const fleet: Fleet = { ...quietFleet(), quarantine };
  const got = summarize(fleet, []).quarantinedGpus;
  assert.equal(
    got?.map((g) => `${g.node}:${g.index}`),
    ['a1:0', 'a1:3', 'a1:10', 'a2:7', 'b1:0', 'b1:3', 'c1:0', 'c1:12'],
  );
  assert.equal(got?.[0], { node: 'a1', index: 0, code: 79, reason: 'Xid 79', since: '2026-11-29T07:00:00Z', until: '2026-11-30T07:00:00Z' });
});

test('quarantinedGpus: the same records in reverse order give the same sorted list', () => {
  const records = [rec('a2', 7), rec('c1', 12), rec('a1', 0), rec('b1', 0), rec('a1', 3), rec('c1', 0), rec('a1', 10), rec('b1', 3)];
  const fleet: Fleet = { ...quietFleet(), quarantine: Object.fromEntries(records.map((r) => [`${r.node}:${r.index}`, r])) };
  assert.equal(
    summarize(fleet, []).quarantinedGpus?.map((g) => `${g.node}:${g.index}`),
    ['a1:0', 'a1:3', 'a1:10', 'a2:7', 'b1:0', 'b1:3', 'c1:0', 'c1:12'],
  );
});

test('no GPU in quarantine: the report has no quarantinedGpus key at all, and no quarantine item', () => {
  const r = summarize(quietFleet(), []);
  assert.not.ok('quarantinedGpus' in r);
  assert.ok(r.attention.every((i) => i.kind !== 'gpus-quarantined'));
});

const q = (node: string, index: number): QuarantinedGpu => ({ ...rec(node, index), reason: 'Xid 79 (GPU has fallen off the bus)' });
const unhealthy = (node: string, index: number) => ({ node, index, class: 'H100', reason: null });

test("one quarantined GPU: item gpus-quarantined, '1 GPU ... its replica is replaced', subject node:index with reason and until, linked to its node", () => {
  const items = attentionOf({ quarantinedGpus: [q('a1', 3)], unhealthyGpus: [unhealthy('a1', 3)] });
  assert.equal(items, [
    {
      kind: 'gpus-quarantined',
      text: '1 GPU quarantined after a fatal Xid (never placed on; its replica is replaced)',
      subjects: [{ name: 'a1:3', detail: 'Xid 79 (GPU has fallen off the bus), until 2026-11-30T07:00:00Z', node: 'a1' }],
    },
  ]);
});

test("two quarantined GPUs: '2 GPUs ... their replicas are replaced'; the unhealthy item counts only the GPU not in quarantine", () => {
  const items = attentionOf({ quarantinedGpus: [q('a1', 3), q('b1', 0)], unhealthyGpus: [unhealthy('a1', 3), unhealthy('a1', 5), unhealthy('b1', 0)] });
  const quarantined = items.find((i) => i.kind === 'gpus-quarantined');
  assert.is(quarantined?.text, '2 GPUs quarantined after a fatal Xid (never placed on; their replicas are replaced)');
  assert.equal(
    quarantined?.subjects.map((s) => s.name),
    ['a1:3', 'b1:0'],
  );
  const sick = items.find((i) => i.kind === 'gpus-unhealthy');
  assert.equal(sick, { kind: 'gpus-unhealthy', text: '1 GPU unhealthy', subjects: [{ name: 'a1:5', detail: null, node: 'a1' }] });
});

test('every unhealthy GPU in quarantine: no gpus-unhealthy item at all', () => {
  const items = attentionOf({ quarantinedGpus: [q('a1', 3)], unhealthyGpus: [unhealthy('a1', 3)] });
  assert.equal(
    items.map((i) => i.kind),
    ['gpus-quarantined'],
  );
});

/** One node, a replica on GPUs 0 and 1; the agent reports Xids on a held GPU (13 and 31: the application's), on a GPU it does not hold (43), and a fatal one (79) on the other held GPU. */
function xidFleet(): Fleet {
  const g = gpus(4);
  const withXid = g.map((x) => {
    if (x.index === 0)
      return {
        ...x,
        xid: [
          { code: 13, at: '2026-11-29T07:10:00Z' },
          { code: 31, at: '2026-11-29T07:20:00Z' },
        ],
      };
    if (x.index === 1) return { ...x, xid: [{ code: 79, at: '2026-11-29T07:30:00Z' }] };
    if (x.index === 2) return { ...x, xid: [{ code: 43, at: '2026-11-29T07:40:00Z' }] };
    return x;
  });
  const c = config([nodeConfig('a1'), nodeConfig('a2')], {}, [model('m', { replicas: 2, gpus: 2 })]);
  const snap = snapshot([up('a1', report(withXid, [replica('m-0', [0, 1])])), up('a2', report(gpus(4), [replica('m-1', [0, 1])]))]);
  return buildFleet(c, snap, emptyState(), NOW);
}

test('a replica row lists the application (non-fatal) Xids of the GPUs it holds, in GPU then report order; not a fatal one, not another GPU’s', () => {
  const r = summarize(xidFleet(), []);
  const row = r.replicas.find((x) => x.id === 'm-0');
  assert.equal(row?.xid, [
    { node: 'a1', gpu: 0, code: 13, at: '2026-11-29T07:10:00Z' },
    { node: 'a1', gpu: 0, code: 31, at: '2026-11-29T07:20:00Z' },
  ]);
  // The fatal one is a quarantine instead.
  assert.equal(
    r.quarantinedGpus?.map((g) => `${g.node}:${g.index}:${g.code}`),
    ['a1:1:79'],
  );
});

test('a replica whose GPUs report no Xid has no xid key in its row', () => {
  const row = summarize(xidFleet(), []).replicas.find((x) => x.id === 'm-1');
  assert.ok(row !== undefined);
  assert.not.ok(Object.hasOwn(row, 'xid'));
});

test('idle.after 0s: a replica with no idle information is still not an idle row; one used a minute ago is', () => {
  const base = quietFleet();
  const fleet: Fleet = {
    ...base,
    config: { ...base.config, cluster: { ...base.config.cluster, idleAfterMs: 0 } },
    replicas: base.replicas.map((r) => (r.id === 'm-1' ? { ...r, idleSeconds: null, idleSince: null } : r)),
  };
  const idle = summarize(fleet, []).idle;
  assert.equal(
    idle.map((r) => r.replica),
    ['m-0'],
  );
  assert.is(idle[0]?.idleSeconds, 60);
});

test.run();
