// A simulated world's loopback block is claimed, not just picked (src/demo/sim-world.ts):
// two worlds alive at once never share one, and a released block is free again. The tests
// claim 127.250-254, outside the worlds' range, so a world starting alongside is not refused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimAddressBlock } from '../../src/demo/sim-world.js';

type Claim = Awaited<ReturnType<typeof claimAddressBlock>>;

test('every live claim holds its own block, all five of a range before the next is refused', async () => {
  const claims: Claim[] = [];
  try {
    for (let i = 0; i < 5; i++) claims.push(await claimAddressBlock(250, 5));
    const blocks = claims.map((c) => c.block).sort((a, b) => a - b);
    assert.equal(blocks, [250, 251, 252, 253, 254]);
    const refused = await claimAddressBlock(250, 5).then(
      () => null,
      (err: unknown) => (err as Error).message,
    );
    assert.is(refused, 'no free loopback block for a simulated world: 127.250-254.0.1:65001 are all taken');
  } finally {
    await Promise.all(claims.map((c) => c.release()));
  }
});

test('a released block can be claimed again', async () => {
  const claims: Claim[] = [];
  try {
    for (let i = 0; i < 5; i++) claims.push(await claimAddressBlock(250, 5));
    const freed = claims.splice(3, 1)[0]!;
    await freed.release();
    const again = await claimAddressBlock(250, 5);
    claims.push(again);
    assert.is(again.block, freed.block);
  } finally {
    await Promise.all(claims.map((c) => c.release()));
  }
});

test.run();
