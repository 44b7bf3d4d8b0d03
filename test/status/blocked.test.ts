// A blocked plan is loud (docs/status.md, docs/safety.md): the status report
// carries the sentence, and STATUS.md and the terminal say it first under
// "Needs attention" — never "Nothing needs attention" while nothing is applied.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize, withAttention } from '../../src/status/index.js';
import { renderStatusMarkdown, renderStatusText } from '../../src/views/status/index.js';
import { sampleFleet } from './sample.js';

const BLOCKED = 'would stop 2 of 2 running and starting replicas (100%) without a replacement; safety.maxStopFraction is 50%';

test('the status report says blocked: the sentence, or null', () => {
  assert.is(summarize(sampleFleet({ webhooks: true }), []).blocked, null);
  assert.is(summarize(sampleFleet({ webhooks: true }), [], BLOCKED).blocked, BLOCKED);
});

test('STATUS.md names the rule and its numbers first under Needs attention', () => {
  const md = renderStatusMarkdown(summarize(sampleFleet({ webhooks: true }), [], BLOCKED));
  assert.not.match(md, /Nothing needs attention/);
  const items = md.split('**Needs attention:**\n\n')[1]!.split('\n\n')[0]!.split('\n');
  assert.is(items[0], `- the plan is blocked, nothing is applied: ${BLOCKED}`);
});

test('a fleet that needs nothing else still does not read "Nothing needs attention" when its plan is blocked', () => {
  const quiet = summarize(sampleFleet({ webhooks: true }), []);
  const report = withAttention({
    ...quiet,
    capacity: quiet.capacity.map((c) => ({ ...c, unhealthy: 0 })),
    unhealthyGpus: [],
    nodes: { unreachable: [], lost: [], cordoned: [] },
    models: [],
  });
  assert.match(renderStatusMarkdown(report), /^Nothing needs attention\.$/m);
  const blocked = renderStatusMarkdown(withAttention({ ...report, blocked: BLOCKED }));
  assert.not.match(blocked, /Nothing needs attention/);
  assert.match(blocked, /^- the plan is blocked, nothing is applied: would stop 2 of 2 /m);
  assert.match(
    renderStatusText(withAttention({ ...report, blocked: BLOCKED }), { color: false }),
    /the plan is blocked, nothing is applied: would stop 2 of 2/,
  );
});

test.run();
