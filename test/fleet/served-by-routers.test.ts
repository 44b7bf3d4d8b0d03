// servedByRouters (docs/placement.md#5-lost): a lost node's replica keeps its
// routes while the routers serve it. Served means some router that answered
// lists it in that model's table, and no router that lists it ejects it; a
// router that did not answer, or lists it under another model, or lists only
// other replicas, says nothing either way.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedByRouters } from '../../src/fleet/routes.js';
import type { RouterObservation } from '../../src/types/snapshot.js';

const entry = (replica: string) => ({ replica, url: `http://h:8000/${replica}` });

function router(name: string, table: Record<string, string[]> | undefined, ejected: string[] = []): RouterObservation {
  return {
    name,
    reachable: true,
    report: {
      version: 1,
      startedAt: '2026-11-28T00:00:00Z',
      lastUsed: {},
      ...(table === undefined ? {} : { table: Object.fromEntries(Object.entries(table).map(([m, ids]) => [m, ids.map(entry)])) }),
      ...(ejected.length === 0
        ? {}
        : {
            ejected: Object.fromEntries(
              ejected.map((id) => [id, { since: '2026-11-29T07:59:00Z', until: '2026-11-29T08:00:00Z', reason: 'stalled' as const, count: 1 }]),
            ),
          }),
    },
  };
}
const down: RouterObservation = { name: 'rt-9', reachable: false, error: 'connect ECONNREFUSED' };

test('served: one answering router lists it and none ejects it, whatever else the table holds', () => {
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', { m: ['m-1', 'm-0'] })]), true);
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', { m: ['m-0'] }), router('rt-2', { m: ['m-1'] })]), true);
  assert.is(servedByRouters('m-0', 'm', [down, router('rt-1', { m: ['m-0'] })]), true);
});

test('not served: listed by no router, listed under another model, only other replicas, no table, or only by routers that did not answer', () => {
  assert.is(servedByRouters('m-0', 'm', []), false);
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', { m: ['m-1', 'm-2'] })]), false);
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', { other: ['m-0'] })]), false);
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', undefined)]), false);
  assert.is(servedByRouters('m-0', 'm', [down]), false);
});

test('an ejection by any router that lists it outweighs every router that serves it, before or after it in the list', () => {
  const serving = router('rt-1', { m: ['m-0'] });
  const ejecting = router('rt-2', { m: ['m-0'] }, ['m-0']);
  assert.is(servedByRouters('m-0', 'm', [serving, ejecting]), false);
  assert.is(servedByRouters('m-0', 'm', [ejecting, serving]), false);
  // Ejected is about the replica named: another replica's ejection changes nothing.
  assert.is(servedByRouters('m-0', 'm', [router('rt-1', { m: ['m-0', 'm-1'] }, ['m-1'])]), true);
  // A router that does not list it cannot veto it, even with an ejection on record.
  assert.is(servedByRouters('m-0', 'm', [serving, router('rt-3', { m: ['m-1'] }, ['m-0'])]), true);
});

test.run();
