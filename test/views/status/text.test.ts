import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../../src/status/index.js';
import { renderStatusText } from '../../../src/views/status/index.js';
import { sampleFleet } from '../../status/sample.js';

test('plain text has no escape sequences; colour only when asked', () => {
  const report = summarize(sampleFleet(), []);
  assert.not.ok(renderStatusText(report, { color: false }).includes('\x1b'));
  assert.ok(renderStatusText(report, { color: true }).includes('\x1b[31m×\x1b[0m'));
});

test('text bars draw used, unhealthy, other, unreachable, cordoned and free in distinct characters', () => {
  const out = renderStatusText(summarize(sampleFleet(), []), { color: false });
  assert.match(out, /H100 +\[███×\?{5}▒{5}░{6}\] +32 +5 +10 +1 +0 +8 +8\n/);
  assert.ok(out.includes('█ used  × unhealthy  ▓ other  ? unreachable  ▒ cordoned  ░ free'));
});

test('a node cannot put terminal escape sequences on the operator screen', () => {
  const out = renderStatusText(summarize(sampleFleet({ gpuName: 'NVIDIA \x1b[2J\x1b]0;pwned\x07X' }), []), { color: false });
  assert.not.ok(out.includes('\x1b'));
  assert.not.ok(out.includes('\x07'));
});

test('idle durations and unknown idleness are shown apart', () => {
  const out = renderStatusText(summarize(sampleFleet(), []), { color: false });
  assert.match(out, /llama-70b-0 +llama-70b +a1 +3d 8h +2026-11-26T00:00:00Z/);
  assert.ok(out.includes('idleness unknown for 1 running replica'));
});

test.run();
