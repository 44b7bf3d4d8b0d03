// docs/placement.md#quarantined-gpus: which Xids quarantine a GPU, for how long,
// what lifts it early, and that a snapshot alone (plan --observed, status)
// quarantines as a tick does.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass } from '../../src/fleet/index.js';
import { FATAL_XIDS, isFatalXid, quarantinesOf } from '../../src/fleet/quarantine.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { GpuReport } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { NOW, NOW_MS, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const H = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Four healthy GPUs, with `xid` on GPU `index`. */
function withXid(index: number, xid: GpuReport['xid']): GpuReport[] {
  return gpus(4).map((g) => (g.index === index ? { ...g, xid } : g));
}

const quarantine = (release: string[] = [], durationMs = 24 * H) => ({ quarantine: { durationMs, release } });

test('exactly the codes of the fatal list quarantine; application codes (13, 31, 43, 45, 68, 109) do not', () => {
  assert.equal(
    [...FATAL_XIDS].sort((a, b) => a - b),
    [48, 63, 64, 74, 79, 92, 94, 95, 119, 120],
  );
  assert.equal([13, 31, 43, 45, 68, 109].map(isFatalXid), [false, false, false, false, false, false]);
});

test('a fatal Xid opens a quarantine from its time for defaults.quarantine; an application Xid opens none', () => {
  const at = iso(NOW_MS - 60_000);
  const snap = snapshot([up('n1', report(withXid(2, [{ code: 13, at }]))), up('n2', report(withXid(2, [{ code: 79, at }])))]);
  assert.equal(quarantinesOf(undefined, snap, quarantine([], 6 * H), NOW_MS), {
    'n2:2': { node: 'n2', index: 2, code: 79, reason: 'Xid 79: GPU has fallen off the bus', since: at, until: iso(NOW_MS - 60_000 + 6 * H) },
  });
});

test('a kept quarantine lasts until `until`, is not refreshed by a new Xid, and ends early when cluster.yaml releases it', () => {
  const kept = { node: 'n1', index: 2, code: 48, reason: 'Xid 48: double-bit ECC error', since: iso(NOW_MS - H), until: iso(NOW_MS + H) };
  const again = snapshot([up('n1', report(withXid(2, [{ code: 79, at: NOW }])))]);
  assert.equal(quarantinesOf({ 'n1:2': kept }, again, quarantine(), NOW_MS), { 'n1:2': kept });
  assert.equal(quarantinesOf({ 'n1:2': kept }, snapshot([up('n1', report(gpus(4)))]), quarantine(), NOW_MS + H), {}, 'expired at until');
  assert.equal(quarantinesOf({ 'n1:2': kept }, again, quarantine(['n1:2']), NOW_MS), {}, 'released, and the Xid does not reopen it');
});

test('with no state.json, a snapshot with a fatal Xid counts its GPU unhealthy and replaces the replica on it', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m', { gpus: 2, replicas: 1 })]);
  const snap = snapshot([up('n1', report(withXid(1, [{ code: 79, at: NOW }]), [replica('m-0', [0, 1])])), up('n2', report(gpus(4)))]);
  const state: State = emptyState();
  const fleet = buildFleet(c, snap, state, NOW);
  assert.equal(
    fleet.nodeByName.get('n1')!.gpus.map((g) => g.bucket),
    ['used', 'unhealthy', 'free', 'free'],
  );
  assert.equal(capacityByClass(fleet)[0]!.unhealthy, 1);
  const plan = planFleet(fleet, state);
  const [start, ...more] = plan.actions.flatMap((a) => (a.op === 'start' ? [a] : []));
  assert.ok(start !== undefined && more.length === 0, JSON.stringify(plan.actions));
  // Never placed on the quarantined GPU: n1 still has two free GPUs, but not 0+1.
  assert.ok(!start.placement.some((p) => p.node === 'n1' && p.gpus.includes(1)), JSON.stringify(start.placement));
});

test.run();
