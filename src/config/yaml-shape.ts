// What a YAML document would become as plain data, checked on the document
// before it is converted, in one walk in file order:
//   - a list or mapping used as a key (`? [a, b]: x`): a JS object cannot hold
//     it, and yaml would stringify it and print a warning line of its own;
//   - an alias with no anchor before it;
//   - an alias inside the very node it names (`a: &x [*x]`): circular data
//     that no later check would finish walking;
//   - aliases that repeat too much: yaml's maxAliasCount counts alias uses, but
//     one alias of a 100,000-item list used a thousand times is within it and
//     still asks every later check to walk 10^8 values.
// Anchors are resolved here as the walk meets them (the last one of a name
// before the alias), not with yaml's Alias.resolve, which walks the whole
// document on every call.

import { isAlias, isCollection, isMap, isPair, isSeq, type Document, type Node } from 'yaml';

export type ShapeProblem = { offset: number; why: 'collection-key' | 'unresolved' | 'cycle' | 'too-large' };

interface Frame {
  node: unknown;
  next: unknown[];
  /** Values in this node once aliases are expanded. */
  sum: number;
}

function children(node: unknown): unknown[] {
  if (isMap(node)) return node.items.flatMap((p) => (isPair(p) ? [p.key, p.value] : []));
  if (isSeq(node)) return [...node.items];
  return [];
}

function offsetOf(node: unknown): number {
  return (node as Node).range?.[0] ?? 0;
}

/** The first problem of the document, or null. Aliases may add at most `maxAdded` values in all. */
export function checkDocumentShape(doc: Document.Parsed, maxAdded: number): ShapeProblem | null {
  const anchors = new Map<string, unknown>();
  const size = new Map<unknown, number>();
  let added = 0;
  const open = (node: unknown): Frame => {
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, node);
    return { node, next: children(node).reverse(), sum: 1 };
  };
  const keys = new Set<unknown>();
  for (const pair of isMap(doc.contents) ? doc.contents.items : []) keys.add(pair.key);
  const stack: Frame[] = [open(doc.contents)];
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (top.next.length === 0) {
      stack.pop();
      size.set(top.node, top.sum);
      const parent = stack.at(-1);
      if (parent !== undefined) parent.sum += top.sum;
      continue;
    }
    const child = top.next.pop();
    if (child === null || child === undefined) continue;
    if (isMap(child)) for (const pair of child.items) keys.add(pair.key);
    if (isAlias(child)) {
      const target = anchors.get(child.source);
      if (target === undefined) return { offset: offsetOf(child), why: 'unresolved' };
      const measured = size.get(target);
      if (measured === undefined) return { offset: offsetOf(child), why: 'cycle' };
      if (keys.has(child) && isCollection(target)) return { offset: offsetOf(child), why: 'collection-key' };
      top.sum += measured;
      added += measured;
      if (added > maxAdded) return { offset: offsetOf(child), why: 'too-large' };
      continue;
    }
    if (keys.has(child) && isCollection(child)) return { offset: offsetOf(child), why: 'collection-key' };
    stack.push(open(child));
  }
  return null;
}
