import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OBSERVED_LABEL, PLANNED_LABEL, statusDiff } from '../../../src/views/plan/status-diff.js';

const ROW = '='.repeat(67);

test('statusDiff drops only an opening row of =, never one further down the patch', () => {
  assert.equal(statusDiff('a\n', 'b\n'), `--- ${OBSERVED_LABEL}\n+++ ${PLANNED_LABEL}\n@@ -1,1 +1,1 @@\n-a\n+b\n`);
  // Labelled alike, the library opens with an Index line: the patch is then the library's, whole.
  assert.equal(
    statusDiff('a\n', 'b\n', PLANNED_LABEL),
    `Index: ${PLANNED_LABEL}\n${ROW}\n--- ${PLANNED_LABEL}\n+++ ${PLANNED_LABEL}\n@@ -1,1 +1,1 @@\n-a\n+b\n`,
  );
  assert.is(statusDiff('same\n', 'same\n'), '');
});

test.run();
