// docs/placement.md#stalled-and-ejected-replicas in every status view: STATUS.md and
// the terminal list a stalled and an ejected replica under "Needs attention" with
// their since-times, and status JSON carries them as `stuckReplicas`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../../src/status/summarize.js';
import { renderStatusJson } from '../../../src/views/status/render-json.js';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { renderStatusText } from '../../../src/views/status/render-text.js';
import { EJECTED_SINCE, STALLED_SINCE, stuckFleet } from '../../fixtures/stuck-fleet.js';

const STALLED = STALLED_SINCE;
const EJECTED = EJECTED_SINCE;
const LINE = `2 replicas stalled or ejected by every router (replaced after liveness.replaceAfter): m-1 (stalled since ${STALLED}), m-2 (ejected by every router since ${EJECTED})`;

function status() {
  return summarize(stuckFleet(), []);
}

test('STATUS.md lists both under Needs attention, each with its kind and since-time', () => {
  const lines = renderStatusMarkdown(status()).split('\n');
  assert.ok(lines.includes(`- ${LINE}`), lines.filter((l) => l.includes('m-1')).join('\n'));
});

test('the terminal says the same', () => {
  assert.ok(renderStatusText(status(), { color: false }).includes(LINE), renderStatusText(status(), { color: false }));
});

test('status JSON carries stuckReplicas: replica, model, nodes, kind, since', () => {
  const json = JSON.parse(renderStatusJson(status())) as { stuckReplicas: unknown };
  assert.equal(json.stuckReplicas, [
    { replica: 'm-1', model: 'm', nodes: ['n1'], kind: 'stalled', since: STALLED },
    { replica: 'm-2', model: 'm', nodes: ['n1'], kind: 'ejected', since: EJECTED },
  ]);
});

test.run();
