// Xid lines of the kernel log (docs/protocol.md#gpu-faults), in the formats the real
// tools print them: journalctl -k -o short-iso-precise, journalctl -o short-iso,
// dmesg --time-format iso.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_XIDS_PER_GPU, lineTime, parseBusId, parseXids, xidsByGpu } from '../../src/agent/kernel-log.js';
import { driverPci, xidLine } from '../../src/sim/fake-kernel-log.js';

const T = Date.parse('2026-12-01T08:00:00Z');
const LOG = [
  '2026-12-01T07:59:10.123456+00:00 gpu-a01 kernel: NVRM: GPU at PCI:0000:3b:00: GPU-8c0e1d2a-0000-4000-8000-000000000002',
  '2026-12-01T07:59:10.223456+00:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.',
  '2026-12-01T07:59:11.000000+00:00 gpu-a01 kernel: NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.',
  '2026-12-01T09:59:20+0200 gpu-a01 kernel: NVRM: Xid (PCI:0000:18:00): 13, pid=4321, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address',
  "2026-12-01T07:59:30,000000+00:00 NVRM: Xid (PCI:0000:9A:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.",
  '[  812.345678] NVRM: Xid (PCI:0000:3b:00): 94, pid=99, name=python3, Contained: SM (0x1). RST: No, D-RST: No',
  '2026-12-01T07:40:00.000000+00:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=x, MMU Fault',
  '2026-12-01T08:00:05.000000+00:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid=1, name=x, Timeout after 6s of waiting for RPC response from GPU0 GSP!',
].join('\n');

const TIMED = LOG.split('\n')
  .filter((l) => !l.startsWith('['))
  .join('\n');

test('Xid lines in the window since the last report, with their own times, whatever the tool printed them with', () => {
  assert.equal(parseXids(TIMED, T - 5 * 60_000, T).xids, [
    { at: '2026-12-01T07:59:10.223Z', domain: 0, bus: 0x3b, device: 0, code: 79 },
    { at: '2026-12-01T07:59:20.000Z', domain: 0, bus: 0x18, device: 0, code: 13 },
    { at: '2026-12-01T07:59:30.000Z', domain: 0, bus: 0x9a, device: 0, code: 48 },
  ]);
});

test('timed lines at or before the start of the window, or after its end, are left out', () => {
  assert.equal(
    parseXids(TIMED, Date.parse('2026-12-01T07:59:10.223Z'), Date.parse('2026-12-01T07:59:20Z')).xids.map((x) => x.code),
    [13],
  );
  assert.is(lineTime('[  812.345678] NVRM: Xid (PCI:0000:3b:00): 94, …'), null);
  assert.is(lineTime('2026-12-01T09:59:20+0200 host kernel: x'), Date.parse('2026-12-01T07:59:20Z'));
});

test('a line without a readable time is reported once, when first seen, at the time of the report; a second copy of it is another fault', () => {
  const untimed = 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.';
  const first = parseXids(`${untimed}\n`, T - 600_000, T);
  assert.equal(first.xids, [{ at: new Date(T).toISOString(), domain: 0, bus: 0x3b, device: 0, code: 79 }]);
  const again = parseXids(`${untimed}\n`, T, T + 30_000, new Set(first.untimed));
  assert.equal(again.xids, [], 'seen by the last report: not again');
  const twice = parseXids(`${untimed}\n${untimed}\n`, T, T + 30_000, new Set(first.untimed));
  assert.equal(
    twice.xids.map((x) => [x.code, x.at]),
    [[79, new Date(T + 30_000).toISOString()]],
  );
  // plain dmesg's seconds since boot are no time either
  assert.equal(
    parseXids(LOG, T - 5 * 60_000, T).xids.map((x) => x.code),
    [79, 13, 48, 94],
  );
});

test("matched to GPUs by nvidia-smi's bus id: domain, bus and device compared as numbers (8 digits upper case vs 4 lower case)", () => {
  const busIds = new Map([
    [0, '00000000:18:00.0'],
    [2, '00000000:3B:00.0'],
    [5, '00000000:9A:00.0'],
  ]);
  const { byGpu, warnings } = xidsByGpu(parseXids(TIMED, T - 5 * 60_000, T).xids, busIds);
  assert.equal(
    [...byGpu].sort((a, b) => a[0] - b[0]),
    [
      [0, [{ code: 13, at: '2026-12-01T07:59:20.000Z' }]],
      [2, [{ code: 79, at: '2026-12-01T07:59:10.223Z' }]],
      [5, [{ code: 48, at: '2026-12-01T07:59:30.000Z' }]],
    ],
  );
  assert.equal(warnings, []);
  assert.equal(parseBusId('00000000:3B:00.0'), { domain: 0, bus: 0x3b, device: 0 });
  assert.is(parseBusId('not a bus'), null);
});

test('an Xid for a bus no GPU has is a warning, not a fault on some other GPU', () => {
  const { byGpu, warnings } = xidsByGpu(parseXids(TIMED, T - 5 * 60_000, T).xids, new Map([[0, '00000000:18:00.0']]));
  assert.equal([...byGpu.keys()], [0]);
  assert.equal(warnings, [
    'kernel log: 1 Xid line for PCI:0000:3b:00, which is no GPU nvidia-smi lists',
    'kernel log: 1 Xid line for PCI:0000:9a:00, which is no GPU nvidia-smi lists',
  ]);
});

test('an Xid storm is bounded: the newest 100 per GPU, and a warning with the count', () => {
  const lines = Array.from({ length: 250 }, (_, i) => xidLine(new Date(T - 250_000 + i * 1000), '00000000:3B:00.0', 13)).join('\n');
  const { byGpu, warnings } = xidsByGpu(parseXids(lines, T - 600_000, T).xids, new Map([[1, '00000000:3B:00.0']]));
  assert.is(byGpu.get(1)?.length, MAX_XIDS_PER_GPU);
  assert.is(byGpu.get(1)?.[0]?.at, new Date(T - 100_000).toISOString());
  assert.equal(warnings, ['kernel log: GPU 1 logged 250 Xids since the last report; the newest 100 are reported']);
});

test("the fake kernel log writes the driver's own line shape", () => {
  assert.is(driverPci('00000000:3B:00.0'), '0000:3b:00');
  assert.is(
    xidLine(new Date(T), '00000000:3B:00.0', 79, { host: 'gpu-a01', pid: 1234 }),
    '2026-12-01T08:00:00.000000+00:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.',
  );
});

test.run();
