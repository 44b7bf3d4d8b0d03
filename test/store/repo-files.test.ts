import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSnapshotFile } from '../../src/store/files.js';

test('a hand-written snapshot may leave out unreachableSince and lastReport: both read as unknown (null)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-snap-'));
  try {
    const file = join(dir, 'observed.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [{ name: 'gpu-a01', reachable: false, error: 'down' }], routers: [] }),
    );
    const snap = await readSnapshotFile(file);
    assert.equal(snap.nodes[0], { name: 'gpu-a01', reachable: false, error: 'down', unreachableSince: null, lastReport: null });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
