// The small rules the renderers share: how the capacity bar shares out its 20
// cells, how an idle duration reads, how a node's line breaks are flattened.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { barText } from '../../../src/views/status/bar.js';
import { md, plainText } from '../../../src/text/markdown-escape.js';
import { duration } from '../../../src/text/format.js';
import type { CapacityRow } from '../../../src/status/types.js';

const row = (counts: Partial<Omit<CapacityRow, 'class' | 'total'>>): CapacityRow => {
  const full = { used: 0, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0, free: 0, ...counts };
  return { class: 'H100', total: full.used + full.unhealthy + full.other + full.unreachable + full.cordoned + full.free, ...full };
};

test('the bar always fills its 20 cells: leftover cells go by largest remainder, ties in drawing order', () => {
  // 6.67 cells each: 6 + 6 + 6, and the 2 left over go to the first two buckets.
  assert.is(barText(row({ used: 1, unhealthy: 1, free: 1 })), '███████×××××××░░░░░░');
  // 13.33 and 6.67: the larger remainder (free's .67) gets the cell.
  assert.is(barText(row({ used: 2, free: 1 })), '█████████████░░░░░░░');
});

test('when the one-cell minimum overshoots, the cell comes back from the widest bucket, the first in drawing order on a tie', () => {
  // 9 + 1 + 1 + 1 + 9 = 21 cells: used and free tie as widest, and used gives one back.
  assert.is(barText(row({ used: 500, unhealthy: 1, unreachable: 1, cordoned: 1, free: 500 })), '████████×?▒░░░░░░░░░');
  assert.is(barText(row({ used: 1000, unhealthy: 1, unreachable: 1, cordoned: 1, free: 1 })), '████████████████×?▒░');
});

test('idle durations read in their two largest units', () => {
  assert.equal([90061, 19_200, 187, 45, 0, 3600, 86_400].map(duration), ['1d 1h', '5h 20m', '3m 7s', '45s', '0s', '1h', '1d']);
});

test("a node's line breaks, CR and tabs, however many in a row, become one space", () => {
  assert.is(plainText('gpu-a01\r\n\t\tsays hi'), 'gpu-a01 says hi');
  assert.is(md('a\r\n\u2028b'), 'a b');
});

test('names of letters, digits, dots, commas, hyphens and spaces come back as they are; www. and every other mark are still escaped', () => {
  assert.is(md('gpu-a0001, llama-3.1 70B'), 'gpu-a0001, llama-3.1 70B');
  assert.is(md('see www.example.com'), 'see www\\.example.com');
  assert.is(md('WWW.x'), 'WWW\\.x');
  assert.is(md('a_b (c)'), 'a\\_b \\(c\\)');
  assert.is(plainText('plain ascii: [x] ~ `y`'), 'plain ascii: [x] ~ `y`');
  assert.is(plainText('tab\there'), 'tab here');
});

test.run();
