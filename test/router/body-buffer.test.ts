import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BodyBuffer } from '../../src/router/body-buffer.js';
import { BodyBudget, type BodyHolder } from '../../src/router/budget.js';

test('a body cut into any pieces comes back byte for byte (300 seeded cuttings, small and large pieces)', () => {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 300; round++) {
    const size = Math.floor(rnd() * 300_000);
    const whole = Buffer.alloc(size);
    for (let i = 0; i < size; i++) whole[i] = (i * 31 + round) & 0xff;
    const b = new BodyBuffer();
    for (let at = 0; at < size;) {
      const piece = Math.max(1, Math.floor(rnd() ** 3 * 100_000));
      b.push(whole.subarray(at, at + piece));
      at += piece;
    }
    assert.is(b.size, size);
    const got = b.take();
    assert.ok(got.equals(whole), `round ${round}: ${size} bytes`);
  }
});

test('a body in one piece is handed back as that very Buffer, uncopied', () => {
  const b = new BodyBuffer();
  const chunk = Buffer.from('{"model":"m"}');
  b.push(chunk);
  assert.is(b.take(), chunk);
});

const holder = (): BodyHolder & { evicted: number } => {
  const h = {
    held: 0,
    evicted: 0,
    evict: () => {
      h.evicted++;
    },
  };
  return h;
};

test('budget: over the cap, the largest holder still receiving goes first; a finished body is never evicted', () => {
  const budget = new BodyBudget(100);
  const [sent, big, small] = [holder(), holder(), holder()];
  assert.ok(budget.take(sent, 50));
  budget.received(sent); // its body went to an engine
  assert.ok(budget.take(big, 40));
  assert.ok(budget.take(small, 5));
  assert.ok(budget.take(small, 10), 'the newcomer pushed the total to 105: the biggest uploader (big) makes room');
  assert.equal([sent.evicted, big.evicted, small.evicted], [0, 1, 0]);
  assert.equal([budget.used, big.held], [65, 0]);
  assert.not.ok(budget.take(small, 40), 'now small is the only uploader, and alone past the room left');
  assert.equal([small.evicted, budget.used], [1, 50]);
  budget.release(sent);
  assert.is(budget.used, 0);
});

test.run();
