// Golden files: `llmgw plan` of each example in every format, so a change to
// placement or rendering shows up as a reviewed diff of these files.
// LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const update = process.env.LLMGW_UPDATE_GOLDEN === '1';

async function plan(example: string, format: string): Promise<string> {
  const c = captureIo({ cwd: ROOT });
  const args = ['--repo', `examples/${example}`, '--observed', `examples/${example}/.llmgw/observed.json`];
  const code = await main(['plan', ...args, '--now', '2026-11-29T08:00:00Z', '--format', format], c.io);
  assert.is(code, 0, c.err());
  return c.out();
}

function golden(path: string, actual: string): void {
  const file = join(ROOT, path);
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.fixture(actual, readFileSync(file, 'utf8'), `${path} (LLMGW_UPDATE_GOLDEN=1 to accept)`);
}

for (const example of ['demo', 'large']) {
  for (const [format, ext] of [['text', 'txt'], ['json', 'json'], ['markdown', 'md']] as const) {
    test(`examples/${example}: plan --format ${format} is the golden file`, async () => {
      golden(`test/plan/golden/${example}.${ext}`, await plan(example, format));
    });
  }
}

test.run();
