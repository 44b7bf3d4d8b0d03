// Golden files: `llmgw plan` of each example in every format, so a change to
// placement or rendering shows up as a reviewed diff of these files.
// LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { ROOT, golden } from '../helpers/golden.js';
import { captureIo } from '../helpers/io.js';

async function plan(example: string, format: string): Promise<string> {
  const c = captureIo({ cwd: ROOT });
  const args = ['--repo', `examples/${example}`, '--observed', `examples/${example}/.llmgw/observed.json`];
  const code = await main(['plan', ...args, '--now', '2026-11-29T08:00:00Z', '--format', format], c.io);
  assert.is(code, 0, c.err());
  return c.out();
}

for (const example of ['demo', 'large']) {
  for (const [format, ext] of [
    ['text', 'txt'],
    ['json', 'json'],
    ['markdown', 'md'],
  ] as const) {
    test(`examples/${example}: plan --format ${format} is the golden file`, async () => {
      golden(`test/plan/golden/${example}.${ext}`, await plan(example, format));
    });
  }
}

test.run();
