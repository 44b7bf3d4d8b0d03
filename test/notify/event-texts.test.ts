// What each notification says and carries (docs/notifications.md): the sentence a
// person reads in Slack, the details a program reads, and the order events come
// in; plus which conditions a tick may close when it saw only part of the world.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents, type DetectInput } from '../../src/notify/events.js';
import type { Fleet } from '../../src/types/fleet.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { Plan } from '../../src/types/plan.js';
import { conditionFleet, type ConditionSpec } from '../fixtures/index.js';

const T = ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z', '2026-11-29T08:10:00Z'];

function tick(prev: State, spec: ConditionSpec | Fleet | null, now: string, extra: Partial<DetectInput> = {}) {
  // A spec is built into a fleet; a fleet (edited by the test) is taken as it is.
  const f = spec === null ? null : Array.isArray(spec.nodes) ? (spec as Fleet) : conditionFleet(spec as ConditionSpec, now);
  return detectEvents(prev, { cluster: 'prod-eu', fleet: f, plan: null, applyFailures: [], configErrors: null, now, ...extra });
}
const names = (r: { events: { event: string; subject: string }[] }) => r.events.map((e) => `${e.event} ${e.subject}`);

test('Slack-active characters a node sends are escaped in the text: & and < (a `<!channel>` mentions no one)', () => {
  const f = conditionFleet({ nodes: { n1: 'lost' }, models: {} });
  f.nodes[0]!.error = 'refused <!channel> & co';
  const t = tick(emptyState(), f, T[0]!);
  assert.is(t.events[0]!.text, '[prod-eu] Node n1 is lost: unreachable since 2026-11-29T07:40:00Z (refused &lt;!channel> &amp; co).');
  assert.is((t.events[0]!.details as { error: string }).error, 'refused <!channel> & co', 'details keep the raw text');
});

test('a node lost since an unknown time, with no error, says exactly that', () => {
  const f = conditionFleet({ nodes: { n1: 'lost' }, models: {} });
  f.nodes[0]!.unreachableSince = null;
  f.nodes[0]!.error = null;
  assert.is(tick(emptyState(), f, T[0]!).events[0]!.text, '[prod-eu] Node n1 is lost: unreachable since an unknown time.');
});

test('counts read as plurals from two on: errors, replicas missing, replicas down, replicas moved', () => {
  const problems = [
    { file: 'models.yaml', line: 3, col: 5, path: 'models[0].gpus', message: 'must be >= 1' },
    { file: 'models.yaml', line: 9, col: 5, path: 'models[1].gpus', message: 'must be >= 1' },
  ];
  assert.match(tick(emptyState(), null, T[0]!, { configErrors: problems }).events[0]!.text, '(2 errors); nothing is applied');

  const plan: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [{ model: 'big', missing: 2, reason: 'no room' }] };
  assert.is(
    tick(emptyState(), { nodes: {}, models: { big: 2 } }, T[0]!, { plan }).events[0]!.text,
    '[prod-eu] Model big cannot be placed (2 replicas missing): no room',
  );

  const up: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 2 }, replicas: { 'm-0': ['m', 'n1', 'running'], 'm-1': ['m', 'n1', 'running'] } };
  const t1 = tick(emptyState(), up, T[0]!);
  const t2 = tick(t1.state, { ...up, nodes: { n1: 'lost' } }, T[1]!);
  assert.equal(
    t2.events.map((e) => e.text),
    [
      '[prod-eu] Node n1 is lost: unreachable since 2026-11-29T07:40:00Z (connect ETIMEDOUT); its 2 replicas will be placed elsewhere.',
      '[prod-eu] Model m is down: none of its 2 replicas is running.',
    ],
  );
});

test('recoveries carry their details: the node and its fabric; the model, desired and running', () => {
  const up: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 3 }, replicas: { 'm-0': ['m', 'n1', 'running'] } };
  const t1 = tick(emptyState(), up, T[0]!);
  const t2 = tick(t1.state, { nodes: { n1: 'lost' }, models: { m: 3 }, replicas: up.replicas }, T[1]!);
  const t3 = tick(t2.state, { ...up, replicas: { 'm-0': ['m', 'n1', 'running'], 'm-1': ['m', 'n1', 'running'] } }, T[2]!);
  assert.equal(
    t3.events.map((e) => [e.event, e.details]),
    [
      ['node.recovered', { node: 'n1', fabric: 'ib-a' }],
      ['model.recovered', { model: 'm', desired: 3, running: 2 }],
    ],
  );
});

test('model.down counts what is left: starting and failed replicas', () => {
  const up: ConditionSpec = { nodes: { n1: 'reachable' }, models: { m: 3 }, replicas: { 'm-0': ['m', 'n1', 'running'] } };
  const t1 = tick(emptyState(), up, T[0]!);
  const t2 = tick(t1.state, { ...up, replicas: { 'm-0': ['m', 'n1', 'failed'], 'm-1': ['m', 'n1', 'starting'], 'm-2': ['m', 'n1', 'failed'] } }, T[1]!);
  assert.equal(t2.events[0]!.details, { model: 'm', desired: 3, running: 0, starting: 1, failed: 2 });
});

test('model.unplaceable carries the model, how many replicas are missing and why', () => {
  const plan: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [{ model: 'big', missing: 1, reason: 'no room' }] };
  assert.equal(tick(emptyState(), { nodes: {}, models: { big: 1 } }, T[0]!, { plan }).events[0]!.details, { model: 'big', missing: 1, reason: 'no room' });
});

test('apply.failed events come in replica order, whatever order the failures arrived in', () => {
  const failures = [
    { replica: 'z-0', node: 'n1', error: 'timeout' },
    { replica: 'a-0', node: 'n1', error: 'timeout' },
    { replica: 'm-0', node: 'n1', error: 'timeout' },
  ];
  assert.equal(names(tick(emptyState(), { nodes: { n1: 'reachable' }, models: {} }, T[0]!, { applyFailures: failures })), [
    'apply.failed a-0',
    'apply.failed m-0',
    'apply.failed z-0',
  ]);
});

test('a tick that could not look at the fleet (invalid config) leaves apply.failed open', () => {
  const spec: ConditionSpec = { nodes: { n1: 'reachable' }, models: {} };
  const t1 = tick(emptyState(), spec, T[0]!, { applyFailures: [{ replica: 'm-0', node: 'n1', error: 'timeout' }] });
  const problems = [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'bad' }];
  const t2 = tick(t1.state, null, T[1]!, { configErrors: problems });
  assert.equal(Object.keys(t2.state.notified).sort(), ['apply.failed/m-0', 'config.invalid/prod-eu']);
});

test('an empty list of config errors is no "config is invalid (0 errors)", and closes nothing', () => {
  const problems = [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'bad' }];
  const t1 = tick(emptyState(), null, T[0]!, { configErrors: problems });
  const t2 = tick(t1.state, null, T[1]!, { configErrors: [] });
  assert.equal(names(t2), []);
  assert.equal(Object.keys(t2.state.notified), ['config.invalid/prod-eu']);
  assert.equal(names(tick(emptyState(), null, T[0]!, { configErrors: [] })), []);
});

test('a lost node taken out of cluster.yaml is forgotten: no recovery, nothing left open', () => {
  const t1 = tick(emptyState(), { nodes: { n1: 'reachable', n2: 'lost' }, models: {} }, T[0]!);
  const t2 = tick(t1.state, { nodes: { n1: 'reachable' }, models: {} }, T[1]!);
  assert.equal(names(t2), []);
  assert.equal(t2.state.notified, {});
});

test('the models that ever ran are kept sorted in state.json, each once', () => {
  const spec: ConditionSpec = {
    nodes: { n1: 'reachable' },
    models: { zeta: 1, alpha: 1 },
    replicas: { 'zeta-0': ['zeta', 'n1', 'running'], 'alpha-0': ['alpha', 'n1', 'running'] },
  };
  const t1 = tick({ ...emptyState(), everRunning: ['zeta'] }, spec, T[0]!);
  assert.equal(t1.state.everRunning, ['alpha', 'zeta']);
});

test.run();
