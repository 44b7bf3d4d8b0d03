// Fault injection, part one (docs/operations.md#crash-only): kill -9 of a reconciler at
// each moment from the lease to the apply, then normal ticks. Part two is
// crash-commit.test.ts; `npm run soak` runs many more, seeded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crashArmed } from '../../src/util/crash-point.js';
import { damage, faultRun, killsFor, NO_DAMAGE } from './fault-world.js';

const MOMENTS = ['lease', 'git:fetch', 'git:merge', 'gather', 'apply:stop', 'apply:start', 'apply:tables'] as const;

test('fault injection is off unless LLMGW_CRASH_AT is set', () => {
  assert.is(crashArmed(), false);
});

test(`kill -9 at ${MOMENTS.join(', ')}: each desired replica runs once, nothing lost, no stuck lease, every event delivered under one id`, async () => {
  const r = await faultRun({ seed: 1, kills: killsFor(MOMENTS, 1) });
  assert.equal(r.notReached, [], r.log.join('\n'));
  assert.equal(r.moments, [...MOMENTS]);
  assert.equal(damage(r), NO_DAMAGE, r.log.join('\n'));
});

test.run();
