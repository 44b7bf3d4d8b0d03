// `llmgw status` in a terminal (src/views/status/render-text.ts, bar.ts, text/reason-labels.ts):
// the capacity table's `other` column, the Nodes section when only GPUs in other
// hands are worth a look, a node both down and cordoned, a headline without
// subjects, the bar's cells and the reason labels.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../../src/fleet/index.js';
import { summarize } from '../../../src/status/index.js';
import { renderStatusText } from '../../../src/views/status/index.js';
import { barCells } from '../../../src/views/status/bar.js';
import { REASON_LABEL } from '../../../src/text/reason-labels.js';
import type { NodeObservation } from '../../../src/types/snapshot.js';
import { emptyState } from '../../../src/types/state.js';
import { NOW, config, down, foreignGpu as foreign, gpus, nodeConfig, report, snapshot, up } from '../../fixtures/index.js';

function text(obs: NodeObservation[], cordon: string[] = []): string {
  const c = config(
    obs.map((o) => nodeConfig(o.name, { cordon: cordon.includes(o.name) })),
    { notify: { webhooks: [{ url: 'https://hooks.example/x' }] } },
  );
  return renderStatusText(summarize(buildFleet(c, snapshot(obs), emptyState(), NOW), []), { color: false });
}

test('the capacity table shows how many GPUs are in other hands in its `other` column', () => {
  const out = text([up('n1', report([foreign(0, 1), foreign(1, 3), foreign(2, 0), foreign(3, 0)]))]);
  assert.match(out, /\n *class +usage +total +used +free +unhealthy +other +unreachable +cordoned\n/);
  assert.match(out, /H100 +\[[▓░ ]+\] +4 +0 +2 +0 +2 +0 +0\n/);
});

test('with every node healthy, GPUs in other hands still get a Nodes section of their own', () => {
  const out = text([up('n1', report([foreign(0, 0), foreign(1, 2), foreign(2, 0), foreign(3, 1)])), up('n2', report(gpus(2)))]);
  assert.ok(out.endsWith('\n\nNodes\n  GPUs in other hands (2): n1:[1,3]\n'), JSON.stringify(out.slice(-80)));
});

test('no GPU in other hands and every node healthy: no Nodes section at all', () => {
  const out = text([up('n1', report(gpus(2)))]);
  assert.not.ok(out.includes('Nodes'), out);
});

test('a node that is down and also cordoned reads `unreachable,cordoned`', () => {
  const out = text([up('n1', report(gpus(1))), down('n2', '2026-11-29T07:59:00Z')], ['n2']);
  assert.match(out, /\n  n2 +unreachable,cordoned +timeout +2026-11-29T07:59:00Z/);
});

test('a headline without subjects is said alone, with no trailing colon', () => {
  const c = config([nodeConfig('n1')], { notify: { webhooks: [{ url: 'https://hooks.example/x' }] } });
  const report0 = summarize(buildFleet(c, snapshot([up('n1', report(gpus(1)))]), emptyState(), NOW), []);
  const out = renderStatusText({ ...report0, attention: [{ kind: 'test', text: 'Plan blocked by safety', subjects: [] }] }, { color: false });
  assert.ok(out.includes('\n  ! Plan blocked by safety\n'), out);
});

test('barCells: every bucket has a count, zero for the ones a class does not have', () => {
  const row = { class: 'H100', total: 8, used: 8, free: 0, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0 };
  assert.equal(barCells(row), { used: 20, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0, free: 0 });
});

test('reason classes read as words: every class has its own label', () => {
  assert.equal(REASON_LABEL, {
    timeout: 'timeout',
    refused: 'refused',
    auth: 'auth',
    'host-key-changed': 'host key changed',
    'host-key-unknown': 'host key unknown',
    'bad-reply': 'bad reply',
    'command-failed': 'command failed',
    network: 'network',
    unknown: 'unknown',
  });
});

test.run();
