import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderInvalidConfigBlock } from '../../src/status/index.js';
import type { ConfigProblem } from '../../src/types/config.js';

const problems: ConfigProblem[] = [
  { file: 'models.yaml', line: 14, col: 11, path: 'models[2].gpus', message: 'must be >= 1' },
  { file: 'cluster.yaml', line: 3, col: 1, path: 'nodez', message: 'unknown key <b>nodez</b> (did you mean nodes?)' },
];
const SUMMARY = '# Fleet status: demo\n\nObserved on 2026-11-29 (UTC).\n';

test('an invalid config puts a block with every error above the last fleet summary', () => {
  const out = renderInvalidConfigBlock(SUMMARY, problems);
  assert.ok(out.includes('The config on this branch is invalid.'));
  assert.ok(out.includes('Nothing is being applied until it is fixed.'));
  assert.ok(out.includes('> - models.yaml:14:11: models\\[2\\].gpus: must be >= 1'));
  assert.ok(out.includes('unknown key &lt;b>nodez&lt;/b> \\(did you mean nodes?\\)'));
  assert.ok(out.endsWith(SUMMARY));
});

test('a second invalid tick replaces the block rather than stacking another', () => {
  const once = renderInvalidConfigBlock(SUMMARY, problems);
  const twice = renderInvalidConfigBlock(once, problems.slice(0, 1));
  assert.is(twice.split('The config on this branch is invalid.').length - 1, 1);
  assert.not.ok(twice.includes('nodez'));
  assert.ok(twice.endsWith(SUMMARY));
  assert.is(renderInvalidConfigBlock(once, problems), once);
});

test('with no previous STATUS.md the block says there is no summary yet', () => {
  assert.ok(renderInvalidConfigBlock(null, problems).includes('No fleet summary yet'));
});

test.run();
