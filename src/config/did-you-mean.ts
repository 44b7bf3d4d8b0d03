// "did you mean" for misspelt keys and names.

/** Edit distance counting a swap of two neighbours as one edit (fabirc -> fabric). */
function editDistance(a: string, b: string): number {
  // One flat table, row i at i × cols: every cell read is one written before it.
  const cols = b.length + 1;
  const d = Array<number>((a.length + 1) * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * cols] = i;
  for (let j = 1; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * cols + j] = v;
    }
  }
  return at(a.length, b.length);
}

/**
 * Suggestions are for typos of names people write: a longer word, or a choice
 * among more names than this, gets none, so a hostile file cannot make the
 * comparisons cost (length × length × names) per mistake.
 */
const MAX_WORD = 64;
const MAX_KNOWN = 1000;

/** The known word closest to `word`, if it is close enough to be a typo of it. */
export function closest(word: string, known: readonly string[]): string | undefined {
  if (word.length > MAX_WORD || known.length > MAX_KNOWN) return undefined;
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDist = Infinity;
  for (const k of known) {
    // The distance is at least the difference in length, and a typo is at most 3 edits away.
    if (Math.abs(k.length - w.length) > 3) continue;
    const d = editDistance(w, k.toLowerCase());
    if (d < bestDist) {
      best = k;
      bestDist = d;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  if (bestDist <= limit) return best;
  // A shortened key (identity for identityFile) is a typo too.
  return w.length >= 4 ? known.find((k) => k.toLowerCase().startsWith(w)) : undefined;
}

/** ` (did you mean 'x'?)`, or '' when nothing is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known);
  return c === undefined ? '' : ` (did you mean '${c}'?)`;
}
