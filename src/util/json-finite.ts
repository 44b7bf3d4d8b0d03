// JSON has no Infinity, but JSON.parse reads `1e999` as one (and `-1e999` as
// -Infinity); JSON.stringify later writes it as `null`. A number like that in
// a reply or request is never meant: find it before anything acts on it or
// commits it. Iterative, so a deeply nested value cannot overflow the stack.

/** Whether any number in `value` is non-finite: the common answer, no, without building a path per value (a year of snapshots is read at once). */
function anyNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (Array.isArray(v)) {
      for (const child of v as unknown[]) if (typeof child === 'object' || typeof child === 'number') stack.push(child);
    } else if (typeof v === 'object' && v !== null) {
      // for…in over an object parsed from JSON (own, enumerable keys only): no array of its values per object.
      for (const k in v) {
        const child = (v as Record<string, unknown>)[k];
        if (typeof child === 'object' || typeof child === 'number') stack.push(child);
      }
    }
  }
  return false;
}

/** The JSON Pointer of the first non-finite number in `value`, or null when every number is finite. */
export function nonFinitePath(value: unknown): string | null {
  if (!anyNonFinite(value)) return null;
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return path === '' ? '/' : path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i] as [string, unknown];
        stack.push([child, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      }
    }
  }
  return null;
}
