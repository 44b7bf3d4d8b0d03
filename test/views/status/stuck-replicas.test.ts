// docs/placement.md#stalled-and-ejected-replicas in every status view: STATUS.md and
// the terminal list a stalled and an ejected replica under "Needs attention" with
// their since-times, and status JSON carries them as `stuckReplicas`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../../src/fleet/index.js';
import { summarize } from '../../../src/status/summarize.js';
import type { RouterObservation } from '../../../src/types/snapshot.js';
import { emptyState } from '../../../src/types/state.js';
import { renderStatusJson } from '../../../src/views/status/render-json.js';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { renderStatusText } from '../../../src/views/status/render-text.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../../fixtures/index.js';

const STALLED = '2026-11-29T07:58:30Z';
const EJECTED = '2026-11-29T07:59:10Z';
const LINE = `2 replicas stalled or ejected by every router (replaced after liveness.replaceAfter): m-1 (stalled since ${STALLED}), m-2 (ejected by every router since ${EJECTED})`;

function status() {
  const c = config([nodeConfig('n1')], {}, [model('m', { gpus: 1, replicas: 3 })]);
  const load = (stalledSince?: string) => ({ running: 2, waiting: 0, progress: 7, ...(stalledSince ? { stalledSince } : {}) });
  const reps = [replica('m-0', [0], { load: load() }), replica('m-1', [1], { load: load(STALLED) }), replica('m-2', [2], { load: load() })];
  const router: RouterObservation = {
    name: 'rt-1',
    reachable: true,
    report: {
      version: 1,
      startedAt: '2026-11-28T00:00:00Z',
      lastUsed: {},
      ejected: { 'm-2': { since: EJECTED, until: '2026-11-29T08:00:40Z', reason: 'stalled', count: 1 } },
    },
  };
  return summarize(buildFleet(c, snapshot([up('n1', report(gpus(3), reps))], [router]), emptyState(), NOW), []);
}

test('STATUS.md lists both under Needs attention, each with its kind and since-time', () => {
  const lines = renderStatusMarkdown(status()).split('\n');
  assert.ok(lines.includes(`- ${LINE}`), lines.filter((l) => l.includes('m-1')).join('\n'));
});

test('the terminal says the same', () => {
  assert.ok(renderStatusText(status(), { color: false }).includes(LINE), renderStatusText(status(), { color: false }));
});

test('status JSON carries stuckReplicas: replica, model, nodes, kind, since', () => {
  const json = JSON.parse(renderStatusJson(status())) as { stuckReplicas: unknown };
  assert.equal(json.stuckReplicas, [
    { replica: 'm-1', model: 'm', nodes: ['n1'], kind: 'stalled', since: STALLED },
    { replica: 'm-2', model: 'm', nodes: ['n1'], kind: 'ejected', since: EJECTED },
  ]);
});

test.run();
