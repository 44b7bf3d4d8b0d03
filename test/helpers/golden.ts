// Golden files: a reviewed copy of what the code prints, so a change to it shows
// up as a diff of the file. LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from dist/test/helpers/. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `path` is relative to the repository root. */
export function golden(path: string, actual: string): void {
  const file = join(ROOT, path);
  if (process.env.LLMGW_UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.fixture(actual, readFileSync(file, 'utf8'), `${path} (LLMGW_UPDATE_GOLDEN=1 to accept)`);
}
