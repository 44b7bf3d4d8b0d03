// What the agents and routers are told about the lifecycle (the wire format:
// docs/protocol.md#the-answer-check): the answer check in rank 0's start, the grace in each stop,
// and stops that drain call no agent and leave every table.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests, stopEntry } from '../../src/apply/agent-requests.js';
import { executePlan } from '../../src/apply/executor.js';
import type { CheckConfig } from '../../src/types/config.js';
import type { Action, Plan } from '../../src/types/plan.js';
import { config, fakeTransport, fleet, node, replica } from './fixtures.js';

const check: CheckConfig = { prompt: 'Reply with the word ready.', expect: { source: 'ready', flags: 'i' }, timeoutMs: 60_500 };
const plan = (actions: Action[]): Plan => ({ version: 1, changes: actions.length > 0, blocked: null, actions, unplaceable: [] });

test("a start carries the model's check to rank 0 only, (?i) as the flag i, the timeout in whole seconds up", () => {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models = cfg.models.map((m) => ({ ...m, check }));
  const ranks = startRequests(
    {
      op: 'start',
      replica: 'big-0',
      model: 'big',
      port: 8000,
      placement: [
        { node: 'g1', gpus: [0] },
        { node: 'g2', gpus: [0] },
      ],
      weights: 'none',
      reason: 'r',
    },
    cfg,
    fleet(cfg, []),
  );
  assert.equal(
    ranks.map((r) => r.request.check),
    [{ prompt: 'Reply with the word ready.', expect: 'ready', flags: 'i', timeoutSeconds: 61 }, undefined],
  );
  const cs = { ...check, expect: { source: '^OK$', flags: '' as const } };
  cfg.models = cfg.models.map((m) => ({ ...m, check: cs }));
  const [one] = startRequests(
    { op: 'start', replica: 'llama-0', model: 'llama', port: 8000, placement: [{ node: 'g1', gpus: [0, 1] }], weights: 'none', reason: 'r' },
    cfg,
    fleet(cfg, []),
  );
  assert.equal(one!.request.check, { prompt: 'Reply with the word ready.', expect: '^OK$', timeoutSeconds: 61 }, 'no flags key without flags');
});

test('a model without a check sends none', () => {
  const cfg = config([node('g1')]);
  const [one] = startRequests(
    { op: 'start', replica: 'llama-0', model: 'llama', port: 8000, placement: [{ node: 'g1', gpus: [0, 1] }], weights: 'none', reason: 'r' },
    cfg,
    fleet(cfg, []),
  );
  assert.not.ok('check' in one!.request);
});

test("a stop carries its model's stopGrace; a removed model's, cluster.yaml's defaults", () => {
  const cfg = config([node('g1')]);
  cfg.models = cfg.models.map((m) => (m.name === 'llama' ? { ...m, stopGraceMs: 1500 } : m));
  const f = fleet(cfg, []);
  assert.equal(stopEntry({ replica: 'llama-0', model: 'llama' }, f), { replica: 'llama-0', graceSeconds: 2 });
  assert.equal(stopEntry({ replica: 'gone-0', model: 'gone' }, f), { replica: 'gone-0', graceSeconds: 30 });
  const withDefaults = fleet({ ...cfg, cluster: { ...cfg.cluster, stopDefaults: { drainTimeoutMs: 1000, stopGraceMs: 0 } } }, []);
  assert.equal(stopEntry({ replica: 'gone-0', model: 'gone' }, withDefaults), { replica: 'gone-0', graceSeconds: 0 });
});

test('a stop that drains calls no agent: it only leaves every table, and counts as a drain begun', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'running'), replica('llama-1', 'llama', ['g2'], 'running')]);
  const t = fakeTransport();
  const stop: Action = {
    op: 'stop',
    replica: 'llama-1',
    model: 'llama',
    reason: 'surplus (2 of 1)',
    waitFor: [],
    phase: 'drain',
    placement: [{ node: 'g2', gpus: [0, 1] }],
  };
  const out = await executePlan(plan([stop]), { config: cfg, fleet: f, transport: t });
  assert.equal(
    t.calls.filter((c) => c.command.endsWith('apply')),
    [],
  );
  const tables = t.calls.filter((c) => c.command.endsWith('endpoints'));
  assert.is(tables.length, 2, 'one push per router, none before (nothing stops)');
  for (const c of tables) assert.equal(c.input.models.llama, [{ replica: 'llama-0', url: 'http://g1.example:8000' }]);
  assert.equal([out.stopped, out.drained, out.results[0]!.status, out.results[0]!.phase], [0, 1, 'ok', 'drain']);
});

test('a drain begins even when a router does not take the table (its timeout must run)', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'running'), replica('llama-1', 'llama', ['g2'], 'running')]);
  const stop: Action = { op: 'stop', replica: 'llama-1', model: 'llama', reason: 'r', waitFor: [], phase: 'drain', placement: [{ node: 'g2', gpus: [0, 1] }] };
  const out = await executePlan(plan([stop]), { config: cfg, fleet: f, transport: fakeTransport({ down: ['rt-2'] }) });
  assert.equal(
    out.results.map((r) => r.status),
    ['ok'],
  );
  assert.equal(out.routerTables, [
    { router: 'rt-1', ok: true },
    { router: 'rt-2', ok: false, error: 'rt-2: connect ECONNREFUSED' },
  ]);
});

test('draining replicas and those failing their answer check stay out of every table; the end of a drain is not held back by a router', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const draining = {
    ...replica('llama-1', 'llama', ['g2'], 'running'),
    draining: { since: '2026-11-29T07:50:00Z', reason: 'surplus', outOfTablesAt: '2026-11-29T07:50:00Z' },
  };
  const wrong = { ...replica('llama-2', 'llama', ['g2'], 'running', 8001), check: { ok: false, at: '2026-11-29T07:59:00Z', error: 'expected /ready/i' } };
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'running'), draining, wrong]);
  const t = fakeTransport({ down: ['rt-2'] });
  const stop: Action = {
    op: 'stop',
    replica: 'llama-1',
    model: 'llama',
    reason: 'surplus; drainTimeout 10m passed (router rt-2 did not answer)',
    waitFor: [],
    phase: 'stop',
    placement: [{ node: 'g2', gpus: [0, 1] }],
  };
  const out = await executePlan(plan([stop]), { config: cfg, fleet: f, transport: t });
  const table = t.calls.find((c) => c.command.endsWith('endpoints') && c.host === 'rt-1')!;
  assert.equal(table.input.models.llama, [{ replica: 'llama-0', url: 'http://g1.example:8000' }]);
  assert.equal(
    t.calls.filter((c) => c.command.endsWith('apply')).map((c) => c.input.stop),
    [[{ replica: 'llama-1', graceSeconds: 30 }]],
  );
  assert.equal(
    out.results.map((r) => r.status),
    ['ok'],
  );
});

test.run();
