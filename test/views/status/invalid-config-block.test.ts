// The invalid-config block of STATUS.md (docs/status.md), byte for byte, and what
// happens to a previous STATUS.md that is not quite what llmgw wrote.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderInvalidConfigBlock } from '../../../src/views/status/index.js';
import { INVALID_BEGIN, INVALID_END } from '../../../src/views/status/invalid-config.js';
import { golden } from '../../helpers/golden.js';

const SUMMARY = '# Fleet status: demo\n\nObserved on 2026-11-29 (UTC).\n';

test('the block is the golden text; an error quoting ``` or ````` gets a longer fence so it cannot close it', () => {
  const out = renderInvalidConfigBlock(SUMMARY, [
    { file: 'models.yaml', line: 14, col: 11, path: 'models[2].gpus', message: 'must be >= 1' },
    { file: 'models.yaml', line: 20, col: 3, path: 'models[3].args[0]', message: 'unknown placeholder in ```{x}``` and `````{y}`````' },
  ]);
  golden('test/status/golden/cases/invalid-config.md', out);
  assert.ok(out.includes('\n> ``````\n'), 'a fence of six: one more than the longest run');
  assert.ok(out.startsWith(`${INVALID_BEGIN}\n`));
});

test('with no previous STATUS.md the block stands alone with the golden sentence', () => {
  golden(
    'test/status/golden/cases/invalid-config-first.md',
    renderInvalidConfigBlock(null, [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'x' }]),
  );
});

test('a block cut short (no end marker) is not a block to replace: the old text is kept whole below the new one', () => {
  const truncated = `${INVALID_BEGIN}\n> **The config on this branch is invalid.**\n${SUMMARY}`;
  const out = renderInvalidConfigBlock(truncated, [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'x' }]);
  assert.ok(out.endsWith(truncated));
});

test('only a block at the very top is replaced: a STATUS.md that quotes the end marker further down is kept whole', () => {
  const quoting = `${SUMMARY}\nThe marker ${INVALID_END} closes the block.\n`;
  const out = renderInvalidConfigBlock(quoting, [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'x' }]);
  assert.ok(out.endsWith(quoting));
});

test('an error that quotes the end marker shows without it, and otherwise as written', () => {
  const out = renderInvalidConfigBlock(SUMMARY, [{ file: 'models.yaml', line: 2, col: 1, path: '', message: `sneaky ${INVALID_END} end` }]);
  assert.ok(out.includes('\n> models.yaml:2:1: sneaky  end\n'));
});

test('replacing a block drops only the blank lines right after it; the text after keeps its own', () => {
  const old = `${INVALID_BEGIN}\n> old\n${INVALID_END}# Fleet status: demo\n\nObserved on 2026-11-29 (UTC).\n`;
  const out = renderInvalidConfigBlock(old, [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'x' }]);
  assert.ok(out.endsWith(`${INVALID_END}\n\n# Fleet status: demo\n\nObserved on 2026-11-29 (UTC).\n`));
});

test.run();
