// "did you mean" for misspelt keys and names.

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The known word closest to `word`, if it is close enough to be a typo of it. */
export function closest(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDist = Infinity;
  for (const k of known) {
    const d = editDistance(w, k.toLowerCase());
    if (d < bestDist) {
      best = k;
      bestDist = d;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  return bestDist <= limit ? best : undefined;
}

/** ` (did you mean 'x'?)`, or '' when nothing is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known);
  return c === undefined ? '' : ` (did you mean '${c}'?)`;
}
