// docs/placement.md#stalled-and-ejected-replicas in the console: a running replica
// that is stalled or ejected by every router says so, with its since-time, on its
// model's page and its node's page, and its row comes first among those needing a look.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelBody } from '../../src/console/pages/models.js';
import { nodeBody } from '../../src/console/pages/nodes.js';
import { summarize } from '../../src/status/summarize.js';
import { stuckFleet } from '../fixtures/stuck-fleet.js';

function world() {
  const fleet = stuckFleet();
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
