// The process's open-file limit (soft), which bounds how many client and
// engine sockets it can hold; null where /proc cannot tell (not Linux).

import { readFileSync } from 'node:fs';

export function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m || m[1] === 'unlimited') return null;
    return Number(m[1]);
  } catch {
    return null;
  }
}
