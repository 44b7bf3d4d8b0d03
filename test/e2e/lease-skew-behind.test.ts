// docs/safety.md#fencing, #clocks: a reconciler whose clock runs an hour behind
// holds the lease; a second, on a true clock, reads that lease as expired and
// takes over while the first is still applying. The nodes refuse the first's
// late calls, it stops at the first refusal and stands by; no node executes a
// lower epoch after a higher one; the fleet ends as declared (lease-skew.ts).
import { test } from 'uvu';
import { skewScenario } from './lease-skew.js';

test('clocks an hour apart, the first holder behind: fenced mid-apply, it stops and stands by; nodes never go back an epoch; the fleet ends as declared', async () => {
  await skewScenario('-1h');
});

test.run();
