// Under noUncheckedIndexedAccess `rows[0]` may be undefined. A test that reads
// one says so here: a missing value fails the test at the read, with what was
// missing, instead of a `!` that hides it until a later TypeError.

/** `value`, or a failed test naming `what` when it is undefined. */
export function defined<T>(value: T | undefined, what = 'a value'): T {
  if (value === undefined) throw new Error(`expected ${what}, got undefined`);
  return value;
}
