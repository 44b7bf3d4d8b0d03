// Golden files: the committed STATUS.md of each example and its status JSON.
// LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { golden } from '../helpers/golden.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import { NOW, ROOT, exampleStatus, status } from './cli-helpers.js';

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
  assert.equal(
    report.idle.map((i: { replica: string }) => i.replica),
    ['llama-3.1-8b-1', 'qwen2.5-72b-0'],
  );
  assert.ok(report.replicas.some((r: { state: string; idleSeconds: number }) => r.state === 'running' && r.idleSeconds === -1));
  assert.is(report.capacity.find((c: { class: string }) => c.class === 'H100').unhealthy, 1);
  assert.equal(report.nodes.unreachable, [{ node: 'gpu-a04', since: '2026-11-29T07:56:00Z', reason: 'timeout', error: 'gpu-a04: connect ETIMEDOUT' }]);
  assert.equal(report.nodes.lost, [{ node: 'gpu-b04', since: '2026-11-29T07:30:00Z', reason: 'network', error: 'gpu-b04: connect EHOSTUNREACH' }]);
  const llama = report.holdings.find((h: { fabric: string; model: string }) => h.fabric === 'ib-a' && h.model === 'llama-3.1-70b');
  assert.equal([llama.shared, llama.localNodes], [['lustre-a'], ['gpu-a01']]);
});

/** The snapshot with every list it carries in reverse order: nodes, routers, and inside each report. */
function reversedSnapshot(text: string): string {
  const snap = JSON.parse(text) as Snapshot;
  const report = (r: AgentReport): AgentReport => ({
    ...r,
    gpus: [...r.gpus].reverse(),
    replicas: [...r.replicas].reverse(),
    storage: [...r.storage].reverse().map((st) => ({ ...st, weights: [...st.weights].reverse() })),
  });
  const nodes = [...snap.nodes]
    .reverse()
    .map((n) => (n.reachable ? { ...n, report: report(n.report) } : { ...n, lastReport: n.lastReport && report(n.lastReport) }));
  return JSON.stringify({ ...snap, nodes, routers: [...snap.routers].reverse() });
}

const FORMATS: [string[], (example: string) => string][] = [
  [['--format', 'markdown'], (e) => `examples/${e}/STATUS.md`],
  [['--json'], (e) => `test/status/golden/${e}.json`],
  [[], (e) => `test/status/golden/${e}.txt`],
];

for (const example of ['demo', 'large']) {
  test(`examples/${example}: its snapshot with every list reversed renders the same golden files byte for byte`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-golden-'));
    try {
      const observed = join(dir, 'observed.json');
      writeFileSync(observed, reversedSnapshot(readFileSync(join(ROOT, `examples/${example}/.llmgw/observed.json`), 'utf8')));
      for (const [flags, file] of FORMATS) {
        const r = await status(['--repo', `examples/${example}`, '--observed', observed, '--now', NOW, ...flags]);
        assert.is(r.code, 0, r.err);
        // Never rewritten from here: the goldens are the tests above; this one only reads them.
        assert.fixture(r.out, readFileSync(join(ROOT, file(example)), 'utf8'), file(example));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
