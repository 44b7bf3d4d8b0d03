// "did you mean" (docs/config.md): a misspelt key or name is answered with the
// known word it is a typo of — within max(1, min(3, length/3)) edits, a swap of
// two neighbours counting as one edit — or, for four letters or more, the known
// word it shortens. Otherwise nothing: a wrong guess is worse than none.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closest, didYouMean } from '../../src/config/did-you-mean.js';
import { ONE_GPU_MODELS, TINY_CLUSTER, problemsOf } from '../fixtures/index.js';

/** Optimal string alignment distance, written out plainly as the reference. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const options = [d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)];
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) options.push(d[i - 2]![j - 2]! + 1);
      d[i]![j] = Math.min(...options);
    }
  }
  return d[a.length]![b.length]!;
}

test('typos people make are answered: a swap, a missing, an extra or a wrong letter, a shortened key', () => {
  const keys = ['fabrics', 'nodes', 'engines', 'models', 'replicas', 'identityFile', 'concurrency', 'gpus'];
  const cases: [string, string | undefined][] = [
    ['fabirc', 'fabrics'],
    ['ndoes', 'nodes'],
    ['enignes', 'engines'],
    ['rpelicas', 'replicas'],
    ['modles', 'models'],
    ['concurency', 'concurrency'],
    ['gpu', 'gpus'],
    ['GPUS', 'gpus'],
    ['iden', 'identityFile'],
    ['ide', undefined],
    ['xyz', undefined],
    ['colour', undefined],
  ];
  for (const [word, expected] of cases) assert.is(closest(word, keys), expected, word);
  assert.is(didYouMean('fabirc', keys), " (did you mean 'fabrics'?)");
  assert.is(didYouMean('colour', keys), '');
});

test('the distance counts a swap of neighbours as one edit and everything else as usual, for any pair of words', () => {
  // Every word of up to 4 letters over a small alphabet and a sample of longer ones, against a few known words:
  // closest() suggests exactly the nearest one within the limit (or a shortened one).
  const alphabet = ['a', 'b', 'c'];
  const words: string[] = [''];
  for (let len = 1; len <= 4; len++) for (const w of words.filter((x) => x.length === len - 1)) for (const c of alphabet) words.push(w + c);
  // Longer words, where the limit is 2 or 3 edits: a fixed pseudo-random sample.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let n = 0; n < 1500; n++) {
    const len = 6 + (next() % 4);
    words.push(Array.from({ length: len }, () => alphabet[next() % 3]).join(''));
  }
  const known = ['abc', 'cab', 'bacca', 'aa', 'cbcbcb', 'abcabcab', 'ccbbaac', 'bacbacbac'];
  for (const word of words.slice(1)) {
    let best: string | undefined;
    let bestDist = Infinity;
    for (const k of known) {
      const d = reference(word, k);
      if (d < bestDist) [best, bestDist] = [k, d];
    }
    const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
    const expected = bestDist <= limit ? best : word.length >= 4 ? known.find((k) => k.startsWith(word)) : undefined;
    assert.is(closest(word, known), expected, word);
  }
});

test('a misspelt key under a node suggests the node key (fabric), not the top-level fabrics', () => {
  assert.equal(problemsOf(TINY_CLUSTER.replace('fabric: ib-a }', 'fabric: ib-a, fabirc: ib-a }'), ONE_GPU_MODELS), [
    "cluster.yaml:6:37: nodes[0].fabirc: unknown key 'fabirc' (did you mean 'fabric'?)",
  ]);
});

test.run();
