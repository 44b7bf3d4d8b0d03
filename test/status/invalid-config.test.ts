import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { marked } from 'marked';
import { renderInvalidConfigBlock } from '../../src/views/status/index.js';
import { INVALID_END } from '../../src/views/status/invalid-config.js';
import type { ConfigProblem } from '../../src/types/config.js';

const problems: ConfigProblem[] = [
  { file: 'models.yaml', line: 14, col: 11, path: 'models[2].gpus', message: 'must be >= 1' },
  { file: 'cluster.yaml', line: 3, col: 1, path: 'nodez', message: 'unknown key <b>nodez</b> (did you mean nodes?)' },
];
const SUMMARY = '# Fleet status: demo\n\nObserved on 2026-11-29 (UTC).\n';

test('an invalid config puts a block with every error, verbatim as file:line:col lines, above the last fleet summary', () => {
  const out = renderInvalidConfigBlock(SUMMARY, problems);
  assert.ok(out.includes('The config on this branch is invalid.'));
  assert.ok(out.includes('Nothing is being applied until it is fixed.'));
  assert.ok(out.includes('\n> models.yaml:14:11: models[2].gpus: must be >= 1\n'));
  assert.ok(out.includes('\n> cluster.yaml:3:1: nodez: unknown key <b>nodez</b> (did you mean nodes?)\n'));
  assert.ok(out.indexOf('models.yaml:14:11') < out.indexOf('# Fleet status'));
  assert.ok(out.endsWith(SUMMARY));
});

test('the errors render inert: a message cannot close the code block, add HTML or end the block early', () => {
  const evil: ConfigProblem[] = [
    { file: 'models.yaml', line: 1, col: 1, path: '', message: 'x\n```\n<img src=x onerror=alert(1)> [l](javascript:alert(1))' },
    { file: 'models.yaml', line: 2, col: 1, path: '', message: `sneaky ${INVALID_END} end` },
  ];
  const out = renderInvalidConfigBlock(SUMMARY, evil);
  const html = marked.parse(out, { async: false, gfm: true });
  assert.not.match(html, /<img|<a /);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the tag shows as text inside the code block');
  assert.is(out.split(INVALID_END).length - 1, 1, 'only the real end marker');
  assert.is(renderInvalidConfigBlock(out, problems), renderInvalidConfigBlock(SUMMARY, problems));
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
