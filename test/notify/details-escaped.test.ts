// A node's text reaches a webhook body escaped (docs/security.md): every
// string in an event's details, also inside arrays and nested objects
// (apply.failed's failures), keys included; numbers, booleans and null stay
// what they are (src/notify/events.ts printableValue).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents } from '../../src/notify/events.js';
import { emptyState } from '../../src/types/state.js';
import { NOW } from '../fixtures/now.js';

test('control characters in a node error are escaped in apply.failed details, inside the failures list of objects', () => {
  const r = detectEvents(emptyState(), {
    cluster: 'prod-eu',
    fleet: null,
    plan: null,
    applyFailures: [{ replica: 'm-1', node: 'gpu\x1b[2J-a01', error: 'boom\x07\nnext' }],
    configErrors: null,
    now: NOW,
  });
  assert.is(r.events.length, 1);
  assert.equal(r.events[0]!.details, { replica: 'm-1', failures: [{ node: 'gpu\\x1b[2J-a01', error: 'boom\\x07\\nnext' }] });
});

test('a router failure keeps its error string escaped at the top level of details', () => {
  const r = detectEvents(emptyState(), {
    cluster: 'prod-eu',
    fleet: null,
    plan: null,
    applyFailures: [{ replica: 'rt-1', node: 'rt-1', error: 'reset\r\x1b]0;x\x07', router: true }],
    configErrors: null,
    now: NOW,
  });
  assert.equal(r.events[0]!.details, { router: 'rt-1', error: 'reset\\r\\x1b]0;x\\x07' });
});

test.run();
