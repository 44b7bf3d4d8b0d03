// `agent report` puts every Xid since its last report on its GPU (docs/protocol.md#gpu-faults),
// read from the node's fake kernel log; the report's clock is injected.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { report } from '../../src/agent/report.js';
import { fakeBusId, fakeKernelLogPath } from '../../src/sim/fake-nvidia-smi.js';
import { logXid } from '../../src/sim/fake-kernel-log.js';
import { makeNode } from './helpers.js';

const REQ = { version: 1 as const, node: 'n1', storage: [], weights: [] };
const H100 = { name: 'NVIDIA H100 80GB HBM3' };
const T = new Date('2026-12-01T08:00:00Z');
const ago = (s: number) => new Date(T.getTime() - s * 1000);

test('an Xid 79 for GPU 2 is on GPU 2 alone, an Xid 13 on its own GPU; the next report does not repeat them', async () => {
  const node = await makeNode([H100, H100, { ...H100, busId: '00000000:3B:00.0' }, H100]);
  try {
    const log = fakeKernelLogPath(join(node.dir, 'gpus.csv'));
    await logXid(log, [
      { at: ago(20 * 60), busId: fakeBusId(1), code: 48 }, // before the first report's 10 minutes
      { at: ago(60), busId: '00000000:3B:00.0', code: 79, pid: 1234 },
      { at: ago(30), busId: fakeBusId(0), code: 13, pid: 4321 },
    ]);
    const first = await report(REQ, node.env, () => T);
    assert.equal(
      first.gpus.map((g) => [g.index, g.xid]),
      [
        [0, [{ code: 13, at: ago(30).toISOString() }]],
        [1, undefined],
        [2, [{ code: 79, at: ago(60).toISOString() }]],
        [3, undefined],
      ],
    );
    assert.equal(first.warnings, []);
    // Classification is the reconciler's: the agent reports, it does not mark the GPU unhealthy for an Xid.
    assert.equal(
      first.gpus.map((g) => g.healthy),
      [true, true, true, true],
    );
    const later = new Date(T.getTime() + 30_000);
    await logXid(log, [{ at: new Date(T.getTime() + 10_000), busId: fakeBusId(3), code: 94 }]);
    const second = await report(REQ, node.env, () => later);
    assert.equal(
      second.gpus.map((g) => [g.index, g.xid]),
      [
        [0, undefined],
        [1, undefined],
        [2, undefined],
        [3, [{ code: 94, at: new Date(T.getTime() + 10_000).toISOString() }]],
      ],
    );
  } finally {
    await node.cleanup();
  }
});

test('$LLMGW_KERNEL_LOG may name a command (argv, no shell); one that fails is a warning and no xid, and the span is read again next time', async () => {
  const node = await makeNode([H100]);
  try {
    const text = join(node.dir, 'kern.txt');
    await logXid(text, [{ at: ago(5), busId: fakeBusId(0), code: 79 }]);
    const broken = await report(REQ, { ...node.env, LLMGW_KERNEL_LOG: `${join(node.dir, 'no-such-tool')} -k` }, () => T);
    assert.is(broken.gpus[0]?.xid, undefined);
    assert.ok(
      broken.warnings.some((w) => w.startsWith('GPU faults unknown: kernel log unreadable (')),
      broken.warnings.join('\n'),
    );
    const script = join(node.dir, 'show-log.sh');
    await writeFile(script, '#!/bin/sh\nexec cat "$1"\n');
    await chmod(script, 0o755);
    const ok = await report(REQ, { ...node.env, LLMGW_KERNEL_LOG: `${script} ${text}` }, () => new Date(T.getTime() + 1000));
    assert.equal(ok.gpus[0]?.xid, [{ code: 79, at: ago(5).toISOString() }]);
  } finally {
    await node.cleanup();
  }
});

test('a fixture line without a time (as the contract writes it) is reported on the first report that sees it, and not on the next', async () => {
  const node = await makeNode([H100, H100, H100]);
  try {
    await writeFile(fakeKernelLogPath(join(node.dir, 'gpus.csv')), `NVRM: Xid (PCI:0000:03:00): 79, pid=1234, GPU has fallen off the bus.\n`);
    const first = await report(REQ, node.env, () => T);
    assert.equal(
      first.gpus.map((g) => g.xid),
      [undefined, undefined, [{ code: 79, at: T.toISOString() }]],
    );
    const second = await report(REQ, node.env, () => new Date(T.getTime() + 30_000));
    assert.equal(
      second.gpus.map((g) => g.xid),
      [undefined, undefined, undefined],
    );
  } finally {
    await node.cleanup();
  }
});

test.run();
