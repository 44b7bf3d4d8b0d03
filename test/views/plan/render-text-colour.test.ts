import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { statusDiff } from '../../../src/views/plan/status-diff.js';
import type { Plan } from '../../../src/types/plan.js';
import { start, stop } from './text-actions.js';

// The terminal's SGR codes, written out here rather than taken from the renderer.
const { RED, GREEN, YELLOW, CYAN, BOLD, RESET } = {
  RED: '\x1b[31m',
  GREEN: '\x1b[32m',
  YELLOW: '\x1b[33m',
  CYAN: '\x1b[36m',
  BOLD: '\x1b[1m',
  RESET: '\x1b[0m',
};
const paint = (code: string, text: string) => `${code}${text}${RESET}`;

const next = { spec: 's', stage: 'canary' as const };

/** A --base plan with one of everything the text format paints. */
const plan: Plan = {
  version: 1,
  changes: true,
  blocked: 'only 3 of 8 nodes answered (38%); safety.minReachableFraction is 50%: observing only',
  actions: [
    { ...stop, cause: 'pending' },
    { ...start, cause: 'change' },
  ],
  unplaceable: [{ model: 'big', missing: 2, reason: 'needs 2 whole H200 nodes in one fabric' }],
  rollouts: [
    { model: 'c', spec: 's', stage: 'canary', text: 'canary 1 of 4 for spec 5f2c9a1e', next },
    { model: 'f', spec: 's', stage: 'failed', text: 'rollout failed for spec 5f2c9a1e: canary errors', next: { ...next, stage: 'failed' } },
    { model: 'h', spec: 's', stage: 'hold', text: 'holding canaries for spec 5f2c9a1e', next },
    { model: 'r', spec: 's', stage: 'rolling', text: 'rolling spec 5f2c9a1e', next: { ...next, stage: 'rolling' } },
  ],
};

test('with colour, each line is painted whole: warnings, cannot-place and Blocked yellow; titles and summary bold; starts green, stops red; a rollout cyan, red once failed; the cause line plain', () => {
  const out = renderPlanText(plan, '', { color: true, base: 'origin/main', warnings: ['the config on origin/main is invalid'] });
  assert.is(
    out,
    [
      paint(YELLOW, 'Warning: the config on origin/main is invalid.'),
      '',
      paint(BOLD, 'This change:'),
      paint(GREEN, '  + start  m-1    a1[0-3]  port 8001  weights: node  (1 of 2 replicas missing)'),
      '',
      paint(BOLD, 'Already pending on origin/main (done whether or not this merges):'),
      paint(RED, '  - stop   old-0  b1[0-1]                            (not in models.yaml)'),
      paint(YELLOW, '  ! cannot place  big (2 replicas): needs 2 whole H200 nodes in one fabric'),
      paint(CYAN, '  ~ rollout  c: canary 1 of 4 for spec 5f2c9a1e'),
      paint(RED, '  ~ rollout  f: rollout failed for spec 5f2c9a1e: canary errors'),
      paint(CYAN, '  ~ rollout  h: holding canaries for spec 5f2c9a1e'),
      paint(CYAN, '  ~ rollout  r: rolling spec 5f2c9a1e'),
      '',
      paint(BOLD, 'Plan: 1 to start, 1 to stop, 2 cannot be placed.'),
      '1 caused by this change, 1 already pending on origin/main.',
      paint(YELLOW, 'Blocked: only 3 of 8 nodes answered (38%); safety.minReachableFraction is 50%: observing only.'),
      '',
      'STATUS.md would not change.',
      '',
    ].join('\n'),
  );
});

test('without colour, the same plan carries no escape code, rollouts included', () => {
  const out = renderPlanText(plan, '', { color: false, base: 'origin/main', warnings: ['w'] });
  assert.is(
    out,
    [
      'Warning: w.',
      '',
      'This change:',
      '  + start  m-1    a1[0-3]  port 8001  weights: node  (1 of 2 replicas missing)',
      '',
      'Already pending on origin/main (done whether or not this merges):',
      '  - stop   old-0  b1[0-1]                            (not in models.yaml)',
      '  ! cannot place  big (2 replicas): needs 2 whole H200 nodes in one fabric',
      '  ~ rollout  c: canary 1 of 4 for spec 5f2c9a1e',
      '  ~ rollout  f: rollout failed for spec 5f2c9a1e: canary errors',
      '  ~ rollout  h: holding canaries for spec 5f2c9a1e',
      '  ~ rollout  r: rolling spec 5f2c9a1e',
      '',
      'Plan: 1 to start, 1 to stop, 2 cannot be placed.',
      '1 caused by this change, 1 already pending on origin/main.',
      'Blocked: only 3 of 8 nodes answered (38%); safety.minReachableFraction is 50%: observing only.',
      '',
      'STATUS.md would not change.',
      '',
    ].join('\n'),
  );
});

test('with colour, a diff line is painted by how it starts: file headers bold, hunk headers cyan, added green, removed red, context plain even when it ends in +, -, @@, +++ or ---', () => {
  const before = 'w-\na+\nb\nx@@\ny---\nz+++\n';
  const planned = 'w-\na+\nc\nx@@\ny---\nz+++\n';
  const diff = statusDiff(before, planned);
  const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
  assert.is(
    renderPlanText(empty, diff, { color: true }),
    [
      paint(BOLD, 'No changes. The fleet matches models.yaml.'),
      '',
      paint(BOLD, '--- STATUS.md (observed)'),
      paint(BOLD, '+++ STATUS.md (planned)'),
      paint(CYAN, '@@ -1,6 +1,6 @@'),
      ' w-',
      ' a+',
      paint(RED, '-b'),
      paint(GREEN, '+c'),
      ' x@@',
      ' y---',
      ' z+++',
      '',
    ].join('\n'),
  );
});

test.run();
