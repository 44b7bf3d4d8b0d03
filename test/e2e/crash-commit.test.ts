// Fault injection, part two (docs/operations.md#crash-only): kill -9 of a reconciler at
// each moment from writing its files to notifying, and mid-rebase, then
// normal ticks. Part one is crash.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { damage, faultRun, killsFor, NO_DAMAGE } from './fault-world.js';

const MOMENTS = ['write', 'git:add', 'git:commit', 'git:push', 'git:rebase', 'notify'] as const;

test(`kill -9 at ${MOMENTS.join(', ')}: each desired replica runs once, nothing lost, no stuck lease, every event delivered under one id`, async () => {
  const r = await faultRun({ seed: 2, kills: killsFor(MOMENTS, 2) });
  assert.equal(r.notReached, [], r.log.join('\n'));
  assert.equal(r.moments, [...MOMENTS]);
  assert.equal(damage(r), NO_DAMAGE, r.log.join('\n'));
});

test.run();
