// docs/placement.md#stalled-and-ejected-replicas in the console: a running replica
// that is stalled or ejected by every router says so, with its since-time, on its
// model's page and its node's page, and its row comes first among those needing a look.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelBody } from '../../src/console/pages/models.js';
import { nodeBody } from '../../src/console/pages/nodes.js';
import { buildFleet } from '../../src/fleet/index.js';
import { summarize } from '../../src/status/summarize.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const STALLED = '2026-11-29T07:58:30Z';
const EJECTED = '2026-11-29T07:59:10Z';

function world() {
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
  const fleet = buildFleet(c, snapshot([up('n1', report(gpus(3), reps))], [router]), emptyState(), NOW);
  return { fleet, report: summarize(fleet, []) };
}

/** The replica table's rows as [replica, state, whether marked for attention], in page order. */
function rows(page: string): [string, string, boolean][] {
  const start = page.indexOf('<section id="replicas">');
  const table = page.slice(start, page.indexOf('</section>', start));
  return [...table.matchAll(/<tr data-key="([^"]+)"( class="attention")?><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => [m[1]!, m[3]!, m[2] !== undefined]);
}

test("a model's page says which replica is stalled and which ejected, since when, those rows first", () => {
  const { fleet, report } = world();
  assert.equal(rows(String(modelBody('m', report, fleet))), [
    ['m-1', 'running, stalled since 2026-11-29 07:58:30 UTC', true],
    ['m-2', 'running, ejected by every router since 2026-11-29 07:59:10 UTC', true],
    ['m-0', 'running', false],
  ]);
});

test("a node's page shows the same states for the replicas it runs", () => {
  const { fleet, report } = world();
  const page = String(nodeBody('n1', fleet, report));
  assert.ok(page.includes('running, stalled since 2026-11-29 07:58:30 UTC'));
  assert.ok(page.includes('running, ejected by every router since 2026-11-29 07:59:10 UTC'));
  assert.is(page.match(/class="attention"><td>m-/g)?.length, 2);
});

test.run();
