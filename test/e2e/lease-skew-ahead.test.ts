// docs/safety.md#fencing, #clocks: a reconciler whose clock runs an hour ahead
// reads a live holder's lease as expired an hour ago and takes over while that
// holder is still applying. The nodes refuse the first holder's late calls, it
// stops at the first refusal and, reading a lease written in its future, counts
// it from when it saw it and stands by; no node executes a lower epoch after a
// higher one; the fleet ends as declared (lease-skew.ts).
import { test } from 'uvu';
import { skewScenario } from './lease-skew.js';

test('clocks an hour apart, the second holder ahead: it takes over mid-apply, the first is fenced, stops and stands by; nodes never go back an epoch; the fleet ends as declared', async () => {
  await skewScenario('+1h');
});

test.run();
