// docs/placement.md#quarantined-gpus, the records themselves: each fatal Xid's
// words, the earliest fatal Xid of a report opens the quarantine, one already
// over (or over this very moment) opens none, an unreachable node's GPUs are
// not looked at, and a report with nothing quarantined is passed on untouched.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quarantinesOf, quarantineText, withQuarantine } from '../../src/fleet/quarantine.js';
import type { GpuReport, XidReport } from '../../src/types/snapshot.js';
import type { QuarantineRecord } from '../../src/types/state.js';
import { NOW, down, gpus, report, snapshot, up } from '../fixtures/index.js';

const NOW_MS = Date.parse(NOW);
const H = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const withXids = (xid: XidReport[]): GpuReport[] => gpus(2).map((g) => (g.index === 1 ? { ...g, xid } : g));
const of = (xid: XidReport[], durationMs = 24 * H) =>
  quarantinesOf(undefined, snapshot([up('n1', report(withXids(xid)))]), { quarantine: { durationMs, release: [] } }, NOW_MS)['n1:1'];

test('each fatal Xid is named with its own words', () => {
  const words: Record<number, string> = {
    48: 'double-bit ECC error',
    63: 'row remapping event',
    64: 'row remapping failure',
    74: 'NVLink error',
    79: 'GPU has fallen off the bus',
    92: 'high single-bit ECC error rate',
    94: 'contained ECC error',
    95: 'uncontained ECC error',
    119: 'GSP RPC timeout',
    120: 'GSP error',
  };
  for (const [code, w] of Object.entries(words)) assert.is(of([{ code: Number(code), at: iso(NOW_MS - H) }])?.reason, `Xid ${code}: ${w}`);
});

test('the earliest fatal Xid of a report opens the quarantine, in any order; a tie keeps the first listed', () => {
  const early = { code: 48, at: iso(NOW_MS - 2 * H) };
  const late = { code: 79, at: iso(NOW_MS - H) };
  assert.equal(of([early, late]), {
    node: 'n1',
    index: 1,
    code: 48,
    reason: 'Xid 48: double-bit ECC error',
    since: iso(NOW_MS - 2 * H),
    until: iso(NOW_MS + 22 * H),
  });
  assert.is(of([late, early])?.code, 48);
  assert.is(of([{ code: 13, at: iso(NOW_MS - 3 * H) }, late])?.code, 79, 'an application Xid opens nothing, however early');
  const same = iso(NOW_MS - H);
  assert.is(
    of([
      { code: 95, at: same },
      { code: 79, at: same },
    ])?.code,
    95,
  );
});

test('a fatal Xid whose quarantine is already over, or ends this very moment, opens none', () => {
  assert.is(of([{ code: 79, at: iso(NOW_MS - 25 * H) }]), undefined);
  assert.is(of([{ code: 79, at: iso(NOW_MS - 24 * H) }]), undefined);
  assert.is(of([{ code: 79, at: iso(NOW_MS - 24 * H + 1000) }])?.until, iso(NOW_MS + 1000));
});

test("an unreachable node's GPUs are not looked at; state.json's records for them stay", () => {
  const kept: QuarantineRecord = {
    node: 'n2',
    index: 0,
    code: 79,
    reason: 'Xid 79: GPU has fallen off the bus',
    since: iso(NOW_MS - H),
    until: iso(NOW_MS + H),
  };
  const got = quarantinesOf({ 'n2:0': kept }, snapshot([down('n2', iso(NOW_MS - H), report(withXids([{ code: 48, at: iso(NOW_MS - H) }])))]), {}, NOW_MS);
  assert.equal(got, { 'n2:0': kept });
});

test('quarantineText names the reason, since and until', () => {
  const q: QuarantineRecord = {
    node: 'n1',
    index: 3,
    code: 48,
    reason: 'Xid 48: double-bit ECC error',
    since: '2026-11-29T07:00:00Z',
    until: '2026-11-30T07:00:00Z',
  };
  assert.is(quarantineText(q), 'quarantined: Xid 48: double-bit ECC error since 2026-11-29T07:00:00Z, until 2026-11-30T07:00:00Z');
});

test('withQuarantine: no report stays none; a report with nothing quarantined is the very same object; a quarantined GPU is unhealthy with the words', () => {
  const q: QuarantineRecord = {
    node: 'n1',
    index: 1,
    code: 48,
    reason: 'Xid 48: double-bit ECC error',
    since: '2026-11-29T07:00:00Z',
    until: '2026-11-30T07:00:00Z',
  };
  assert.is(withQuarantine(null, 'n1', { 'n1:1': q }), null);
  const r = report(gpus(2));
  assert.is(withQuarantine(r, 'n1', {}), r);
  assert.is(withQuarantine(r, 'n1', { 'n2:1': q }), r, 'another node of the same index');
  const got = withQuarantine(r, 'n1', { 'n1:1': q });
  assert.is.not(got, r);
  assert.equal(got?.gpus[1], { ...r.gpus[1], healthy: false, reason: quarantineText(q) });
  assert.is(got?.gpus[0], r.gpus[0]);
  assert.is(r.gpus[1]?.healthy, true, 'the report itself is left untouched');
  const both = withQuarantine(r, 'n1', { 'n1:0': { ...q, index: 0 }, 'n1:1': q });
  assert.equal(
    both?.gpus.map((g) => g.healthy),
    [false, false],
  );
});

test.run();
