import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents, type DetectInput } from '../../src/notify/events.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { Plan } from '../../src/types/plan.js';
import { conditionFleet, type ConditionSpec } from '../fixtures/index.js';

const T = ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z', '2026-11-29T08:10:00Z', '2026-11-29T08:15:00Z'];

function tick(prev: State, spec: ConditionSpec | null, now: string, extra: Partial<DetectInput> = {}) {
  return detectEvents(prev, {
    cluster: 'prod-eu',
    fleet: spec ? conditionFleet(spec, now) : null,
    plan: null,
    applyFailures: [],
    configErrors: null,
    now,
    ...extra,
  });
}
const names = (r: { events: { event: string; subject: string }[] }) => r.events.map((e) => `${e.event} ${e.subject}`);

test('node.lost fires once per outage and node.recovered closes it', () => {
  const lost: ConditionSpec = { nodes: { 'gpu-a01': 'reachable', 'gpu-a02': 'lost' }, models: {} };
  const t1 = tick(emptyState(), lost, T[0]!);
  assert.equal(names(t1), ['node.lost gpu-a02']);
  assert.equal(t1.events[0], {
    event: 'node.lost',
    cluster: 'prod-eu',
    time: T[0],
    subject: 'gpu-a02',
    text: '[prod-eu] Node gpu-a02 is lost: unreachable since 2026-11-29T07:40:00Z (connect ETIMEDOUT).',
    details: { node: 'gpu-a02', fabric: 'ib-a', unreachableSince: '2026-11-29T07:40:00Z', error: 'connect ETIMEDOUT', replicas: [] },
  });
  assert.equal(t1.state.notified, { 'node.lost/gpu-a02': T[0] });
  const t2 = tick(t1.state, lost, T[1]!);
  assert.equal(names(t2), [], 'the next tick does not resend');
  const t3 = tick(t2.state, { nodes: { 'gpu-a01': 'reachable', 'gpu-a02': 'reachable' }, models: {} }, T[2]!);
  assert.equal(names(t3), ['node.recovered gpu-a02']);
  assert.is(t3.events[0]!.text, '[prod-eu] Node gpu-a02 is reachable again.');
  assert.equal(t3.state.notified, {});
});

test('a restarted reconciler reading the committed state does not resend', () => {
  const lost: ConditionSpec = { nodes: { 'gpu-a02': 'lost' }, models: {} };
  const t1 = tick(emptyState(), lost, T[0]!);
  const restored: State = JSON.parse(JSON.stringify(t1.state));
  assert.equal(names(tick(restored, lost, T[1]!)), []);
});

test('an unreachable node that is not yet lost neither fires nor recovers', () => {
  const t1 = tick(emptyState(), { nodes: { n1: 'unreachable' }, models: {} }, T[0]!);
  assert.equal(names(t1), []);
  const t2 = tick(t1.state, { nodes: { n1: 'lost' }, models: {} }, T[1]!);
  const t3 = tick(t2.state, { nodes: { n1: 'unreachable' }, models: {} }, T[2]!);
  assert.equal(names(t3), [], 'still out: the outage stays open');
  assert.equal(Object.keys(t3.state.notified), ['node.lost/n1']);
});

test('model.down needs a model that ran: a new model still starting is not down', () => {
  const starting: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 1 }, replicas: { 'm-0': ['m', 'n1', 'starting'] } };
  const t1 = tick(emptyState(), starting, T[0]!);
  assert.equal(names(t1), []);
  assert.equal(t1.state.everRunning, []);
  const t2 = tick(t1.state, { ...starting, replicas: { 'm-0': ['m', 'n1', 'running'] } }, T[1]!);
  assert.equal(names(t2), []);
  assert.equal(t2.state.everRunning, ['m']);
  const t3 = tick(t2.state, { ...starting, replicas: { 'm-0': ['m', 'n1', 'failed'] } }, T[2]!);
  assert.equal(names(t3), ['model.down m']);
  assert.is(t3.events[0]!.text, '[prod-eu] Model m is down: none of its 1 replica is running.');
  assert.equal(t3.events[0]!.details, { model: 'm', desired: 1, running: 0, starting: 0, failed: 1 });
  const t4 = tick(t3.state, { ...starting, replicas: { 'm-1': ['m', 'n1', 'running'] } }, T[3]!);
  assert.equal(names(t4), ['model.recovered m']);
  assert.is(t4.events[0]!.text, '[prod-eu] Model m is serving again: 1 of 1 replicas running.');
});

test('a model whose only running replica sits on a lost node is down, alongside node.lost', () => {
  const up: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 1 }, replicas: { 'm-0': ['m', 'n1', 'running'] } };
  const t1 = tick(emptyState(), up, T[0]!);
  const t2 = tick(t1.state, { ...up, nodes: { n1: 'lost' } }, T[1]!);
  assert.equal(names(t2), ['node.lost n1', 'model.down m']);
  assert.match(t2.events[0]!.text, /its 1 replica will be placed elsewhere/);
});

test('a model scaled to zero or removed is not down and its condition is forgotten', () => {
  const up: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 1 }, replicas: { 'm-0': ['m', 'n1', 'running'] } };
  const t1 = tick(emptyState(), up, T[0]!);
  const t2 = tick(t1.state, { nodes: { n1: 'reachable' }, models: { m: 1 } }, T[1]!);
  assert.equal(names(t2), ['model.down m']);
  const t3 = tick(t2.state, { nodes: { n1: 'reachable' }, models: { m: 0 } }, T[2]!);
  assert.equal(names(t3), []);
  assert.equal(t3.state.notified, {});
  assert.equal(t3.state.everRunning, []);
});

test('model.unplaceable fires once and closes quietly once it is placed', () => {
  const plan = (unplaceable: Plan['unplaceable']): Plan => ({ version: 1, changes: false, blocked: null, actions: [], unplaceable });
  const spec: ConditionSpec = { nodes: {}, models: { big: 1 } };
  const u = [{ model: 'big', missing: 1, reason: 'needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1' }];
  const t1 = tick(emptyState(), spec, T[0]!, { plan: plan(u) });
  assert.equal(names(t1), ['model.unplaceable big']);
  assert.is(
    t1.events[0]!.text,
    '[prod-eu] Model big cannot be placed (1 replica missing): needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1',
  );
  assert.equal(names(tick(t1.state, spec, T[1]!, { plan: plan(u) })), []);
  assert.equal(names(tick(t1.state, spec, T[1]!, { plan: null })), [], 'no plan: nothing known, nothing closed');
  assert.equal(tick(t1.state, spec, T[1]!, { plan: null }).state.notified, t1.state.notified);
  const t3 = tick(t1.state, spec, T[2]!, { plan: plan([]) });
  assert.equal(names(t3), []);
  assert.equal(t3.state.notified, {});
});

test('apply.failed is one event per replica, once, with every node it failed on', () => {
  const spec: ConditionSpec = { nodes: { n1: 'reachable', n2: 'reachable' }, models: {} };
  const failures = [
    { replica: 'm-1', node: 'n2', error: 'engine <exited> 1' },
    { replica: 'm-1', node: 'n1', error: 'timeout' },
  ];
  const t1 = tick(emptyState(), spec, T[0]!, { applyFailures: failures });
  assert.equal(names(t1), ['apply.failed m-1']);
  assert.is(t1.events[0]!.text, '[prod-eu] Applying m-1 failed on n2: engine &lt;exited> 1; n1: timeout');
  assert.equal(t1.events[0]!.details, {
    replica: 'm-1',
    failures: [
      { node: 'n2', error: 'engine <exited> 1' },
      { node: 'n1', error: 'timeout' },
    ],
  });
  assert.equal(names(tick(t1.state, spec, T[1]!, { applyFailures: failures })), []);
  const t3 = tick(t1.state, spec, T[2]!);
  assert.equal(t3.state.notified, {}, 'a tick without the failure closes it');
  assert.equal(names(tick(t3.state, spec, T[3]!, { applyFailures: failures })), ['apply.failed m-1']);
});

test('a router that did not take its endpoint table is one apply.failed for that router, once', () => {
  const spec: ConditionSpec = { nodes: { n1: 'reachable' }, models: {} };
  const failures = [
    { replica: 'rt-2', node: 'rt-2', error: 'connect ECONNREFUSED', router: true as const },
    { replica: 'rt-2', node: 'rt-2', error: 'connect ECONNREFUSED', router: true as const },
  ];
  const t1 = tick(emptyState(), spec, T[0]!, { applyFailures: failures });
  assert.equal(names(t1), ['apply.failed rt-2']);
  assert.is(t1.events[0]!.text, '[prod-eu] Router rt-2 did not take its endpoint table (connect ECONNREFUSED); replicas it may still list are not stopped');
  assert.equal(t1.events[0]!.details, { router: 'rt-2', error: 'connect ECONNREFUSED' });
  assert.equal(names(tick(t1.state, spec, T[1]!, { applyFailures: failures })), []);
});

test('config.invalid fires once, leaves fleet conditions alone, and closes when the config is valid again', () => {
  const problems = [{ file: 'models.yaml', line: 14, col: 11, path: 'models[2].gpus', message: 'must be >= 1' }];
  const lost = tick(emptyState(), { nodes: { n1: 'lost' }, models: {} }, T[0]!);
  const t1 = tick(lost.state, null, T[1]!, { configErrors: problems });
  assert.equal(names(t1), ['config.invalid prod-eu']);
  assert.is(
    t1.events[0]!.text,
    '[prod-eu] The config is invalid (1 error); nothing is applied until it is fixed. First: models.yaml:14:11: models[2].gpus: must be >= 1',
  );
  assert.equal(t1.events[0]!.details, { errors: ['models.yaml:14:11: models[2].gpus: must be >= 1'] });
  assert.ok(t1.state.notified['node.lost/n1'], 'no fleet seen: the node outage stays open');
  assert.equal(names(tick(t1.state, null, T[2]!, { configErrors: problems })), []);
  const t3 = tick(t1.state, { nodes: { n1: 'lost' }, models: {} }, T[3]!);
  assert.equal(names(t3), []);
  assert.equal(Object.keys(t3.state.notified), ['node.lost/n1']);
});

test('detectEvents leaves the previous state untouched and keeps the rest of it', () => {
  const prev = { ...emptyState(), unreachableSince: { n1: '2026-11-29T07:40:00Z' } };
  const frozen = JSON.stringify(prev);
  const r = tick(prev, { nodes: { n1: 'lost' }, models: {} }, T[0]!);
  assert.is(JSON.stringify(prev), frozen);
  assert.equal(r.state.unreachableSince, prev.unreachableSince);
});

test.run();
