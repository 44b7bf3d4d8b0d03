// The terminal progress line of `llmgw gather` (`412/1000 nodes · 3 unreachable`),
// redrawn in place at most ten times a second. Not a terminal: silent, so
// logs and pipes get only the snapshot.

import type { GatherProgress } from './gather.js';

export interface ProgressLine {
  update(p: GatherProgress): void;
  /** Erase the line (call once, when done). */
  done(): void;
}

export function formatProgress(p: GatherProgress): string {
  return `${p.done}/${p.total} nodes · ${p.unreachable} unreachable`;
}

export function createProgressLine(stream: NodeJS.WritableStream & { isTTY?: boolean }, intervalMs = 100): ProgressLine {
  if (!stream.isTTY) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(p) {
      const t = Date.now();
      if (t - last < intervalMs && p.done !== p.total) return;
      last = t;
      shown = true;
      stream.write(`\r\x1b[K${formatProgress(p)}`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
