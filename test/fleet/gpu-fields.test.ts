// docs/placement.md, what a node's report says of each GPU as the fleet reads
// it: someone else's processes make a GPU `other` only when no llmgw replica
// holds it; a foreign count or a memory size is taken only as a positive
// number (anything else: none, and memory stays absent, never zero).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketOf, fleetGpus, freeWholeClassOf } from '../../src/fleet/gpus.js';
import { report } from '../fixtures/index.js';

const classOf = (name: string) => (name.includes('H100') ? 'H100' : 'other');
/** A report is untrusted JSON: a field may hold anything. */
const one = (g: Record<string, unknown>) => fleetGpus(report([{ index: 0, name: 'NVIDIA H100', healthy: true, ...g }]), 'reachable', false, classOf)[0];

test('foreign processes make a GPU other only when no replica of llmgw holds it', () => {
  assert.is(bucketOf('reachable', true, null, false, 2), 'other');
  assert.is(bucketOf('reachable', true, 'm-0', false, 2), 'used');
  assert.is(bucketOf('reachable', true, null, false, 0), 'free');
  assert.is(bucketOf('reachable', true, null, true, 0), 'cordoned');
});

test('no report: no GPUs', () => {
  assert.equal(fleetGpus(null, 'reachable', false, classOf), []);
});

test('a foreign count is taken only as a positive number', () => {
  assert.is(one({ foreign: 2 })?.foreign, 2);
  assert.is(one({ foreign: 2 })?.bucket, 'other');
  for (const v of [undefined, 0, -1, '3', Number.NaN]) {
    const g = one({ foreign: v });
    assert.is(g?.foreign, 0, String(v));
    assert.is(g?.bucket, 'free', String(v));
  }
});

test('a memory size is taken only as a positive number; otherwise it stays absent', () => {
  assert.is(one({ memoryMiB: 40960 })?.memoryMiB, 40960);
  for (const v of [undefined, 0, -1, '40960']) {
    const g = one({ memoryMiB: v });
    assert.not.ok(g !== undefined && 'memoryMiB' in g, String(v));
  }
});

test("a GPU in someone else's hands keeps its node from being a free whole node", () => {
  const gpus = [one({}), one({ foreign: 1 })].map((g, index) => ({ ...g!, index }));
  assert.is(freeWholeClassOf('reachable', false, 0, [gpus[0]!]), 'H100');
  assert.is(freeWholeClassOf('reachable', false, 0, gpus), null);
});

test.run();
