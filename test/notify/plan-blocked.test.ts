// plan.blocked (docs/notifications.md): a plan the safety rules refuse applies
// nothing, so somebody must hear of it — once per transition, not every tick.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents } from '../../src/notify/events.js';
import { EVENT_NAMES } from '../../src/types/config.js';
import type { Plan } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { getValidator } from '../../src/util/schema.js';

const BLOCKED = 'would stop 10 of 10 running and starting replicas (100%) without a replacement; safety.maxStopFraction is 50%';
const plan = (blocked: string | null): Plan => ({ version: 1, changes: true, blocked, actions: [], unplaceable: [] });
const tick = (prev: State, p: Plan | null, now: string) =>
  detectEvents(prev, { cluster: 'prod-eu', fleet: null, plan: p, applyFailures: [], configErrors: null, now });

test('plan.blocked fires once when a plan becomes blocked, not again while it stays blocked, and again after it was unblocked', () => {
  const t1 = tick(emptyState(), plan(BLOCKED), '2026-11-29T08:00:00Z');
  assert.equal(
    t1.events.map((e) => [e.event, e.subject]),
    [['plan.blocked', 'prod-eu']],
  );
  assert.is(t1.events[0]!.text, `[prod-eu] The plan is blocked, nothing is applied: ${BLOCKED}.`);
  assert.equal(t1.events[0]!.details, { blocked: BLOCKED, actions: 0 });
  assert.equal(t1.state.notified, { 'plan.blocked/prod-eu': '2026-11-29T08:00:00Z' });
  const t2 = tick(t1.state, plan(BLOCKED), '2026-11-29T08:05:00Z');
  assert.equal(t2.events, []);
  const t3 = tick(t2.state, plan(null), '2026-11-29T08:10:00Z');
  assert.equal([t3.events, t3.state.notified], [[], {}]);
  assert.equal(
    tick(t3.state, plan(BLOCKED), '2026-11-29T08:15:00Z').events.map((e) => e.event),
    ['plan.blocked'],
  );
});

test('a tick with no plan (an invalid config) leaves an open plan.blocked as it is', () => {
  const t1 = tick(emptyState(), plan(BLOCKED), '2026-11-29T08:00:00Z');
  assert.equal(tick(t1.state, null, '2026-11-29T08:05:00Z').state.notified, t1.state.notified);
});

test('plan.blocked is an event a webhook may subscribe to', () => {
  assert.ok(EVENT_NAMES.includes('plan.blocked'));
  const validate = getValidator('cluster');
  const cluster = {
    apiVersion: 'llmgw/v1',
    kind: 'Cluster',
    name: 't',
    fabrics: ['a'],
    nodes: [{ name: 'n1', fabric: 'a' }],
    engines: { e: { command: ['x'] } },
    notify: { webhooks: [{ url: 'https://hooks.example/x', events: ['plan.blocked'] }] },
  };
  const checked = validate(cluster);
  assert.ok(checked.ok, JSON.stringify(checked));
});

test.run();
