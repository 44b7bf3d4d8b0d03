import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { executePlan } from '../../src/apply/executor.js';
import type { Action, Plan } from '../../src/types/plan.js';
import { type Call, config, fakeTransport, fleet, node, replica } from './fixtures.js';

const plan = (actions: Action[]): Plan => ({ version: 1, changes: actions.length > 0, blocked: null, actions, unplaceable: [] });
const start = (replica: string, model: string, nodes: string[], port = 8000): Action => ({
  op: 'start',
  replica,
  model,
  port,
  weights: 'none',
  reason: 'missing',
  placement: nodes.map((n) => ({ node: n, gpus: [0, 1] })),
});
const stop = (replica: string, model: string, nodes: string[], waitFor: string[] = []): Action => ({
  op: 'stop',
  replica,
  model,
  reason: 'r',
  waitFor,
  placement: nodes.map((n) => ({ node: n, gpus: [0, 1] })),
});
const kind = (c: Call) =>
  c.command.endsWith('endpoints')
    ? `table@${c.host}`
    : `${c.host}:start=${(c.input.start as { replica: string }[]).map((s) => s.replica).join(',')};stop=${(c.input.stop as (string | { replica: string })[]).map((s) => (typeof s === 'string' ? s : s.replica)).join(',')}`;

test('order: table, freeing stops, starts (one call per node), table, ready stops', async () => {
  const cfg = config([node('g1'), node('g2'), node('g3')]);
  const f = fleet(cfg, [
    replica('old-0', 'gone', ['g1'], 'running'),
    replica('llama-0', 'llama', ['g3'], 'running'),
    replica('llama-1', 'llama', ['g3'], 'running', 8001),
  ]);
  const t = fakeTransport();
  const out = await executePlan(
    plan([
      stop('old-0', 'gone', ['g1']),
      start('llama-2', 'llama', ['g2']),
      start('llama-3', 'llama', ['g2'], 8001),
      start('big-0', 'big', ['g1', 'g2'], 8002),
      stop('llama-1', 'llama', ['g3'], ['llama-0']),
    ]),
    { config: cfg, fleet: f, transport: t },
  );
  const seq = t.calls.map(kind);
  assert.equal(seq.slice(0, 2).sort(), ['table@rt-1', 'table@rt-2']);
  assert.is(seq[2], 'g1:start=;stop=old-0');
  assert.equal(seq.slice(3, 5).sort(), ['g1:start=big-0;stop=', 'g2:start=llama-2,llama-3,big-0;stop=']);
  assert.equal(seq.slice(5, 7).sort(), ['table@rt-1', 'table@rt-2']);
  assert.is(seq[7], 'g3:start=;stop=llama-1');
  assert.is(seq.length, 8);
  assert.equal([out.started, out.stopped, out.deferred, out.failed], [3, 2, 0, 0]);
});

test('the router table lists every model, running replicas only, without those being stopped', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [
    replica('llama-0', 'llama', ['g1'], 'running'),
    replica('llama-1', 'llama', ['g2'], 'starting'),
    replica('llama-2', 'llama', ['g2'], 'running', 8001),
    replica('llama-3', 'llama', ['g2'], 'failed', 8002),
    { ...replica('llama-4', 'llama', ['g1'], 'running', 8003), lost: true },
    replica('old-0', 'gone', ['g1'], 'running', 8004),
  ]);
  const t = fakeTransport();
  await executePlan(plan([stop('llama-2', 'llama', ['g2'])]), { config: cfg, fleet: f, transport: t });
  const tables = t.calls.filter((c) => c.command === 'llmgw router endpoints');
  assert.is(tables.length, 4);
  for (const c of tables) {
    assert.equal(c.input, {
      version: 1,
      models: { llama: [{ replica: 'llama-0', url: 'http://g1.example:8000' }], big: [], idle: [] },
    });
  }
});

test('no table push before the freeing stops when none of them is in the table', async () => {
  const cfg = config([node('g1')]);
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'failed')]);
  const t = fakeTransport();
  await executePlan(plan([stop('llama-0', 'llama', ['g1'])]), { config: cfg, fleet: f, transport: t });
  assert.equal(t.calls.map(kind), ['g1:start=;stop=llama-0', 'table@rt-1', 'table@rt-2']);
});

test('a stop whose waitFor is not all running waits for a later tick and stays in the table', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'running'), replica('llama-1', 'llama', ['g2'], 'starting')]);
  const t = fakeTransport();
  const out = await executePlan(plan([start('llama-2', 'llama', ['g2'], 8001), stop('llama-0', 'llama', ['g1'], ['llama-1', 'llama-2'])]), {
    config: cfg,
    fleet: f,
    transport: t,
  });
  assert.equal(
    t.calls.map(kind).filter((k) => !k.startsWith('table')),
    ['g2:start=llama-2;stop='],
  );
  assert.equal(out.results[1], { op: 'stop', replica: 'llama-0', model: 'llama', status: 'deferred', nodes: ['g1'], waitingFor: ['llama-1', 'llama-2'] });
  assert.equal(t.calls.find((c) => c.host === 'rt-1')!.input.models.llama, [{ replica: 'llama-0', url: 'http://g1.example:8000' }]);
  assert.equal(out.deferred, 1);
});

test('a node that cannot be reached fails its own actions and no others', async () => {
  const cfg = config([node('g1'), node('g2'), node('g3')]);
  const f = fleet(cfg, []);
  const t = fakeTransport({ down: ['g2', 'rt-2'] });
  const out = await executePlan(plan([start('llama-0', 'llama', ['g1']), start('llama-1', 'llama', ['g2']), start('llama-2', 'llama', ['g3'])]), {
    config: cfg,
    fleet: f,
    transport: t,
  });
  assert.equal(
    out.results.map((r) => r.status),
    ['ok', 'failed', 'ok'],
  );
  assert.is(out.results[1]!.error, 'g2: g2: connect ECONNREFUSED');
  assert.equal(out.failures, [
    { op: 'start', replica: 'llama-1', model: 'llama', host: 'g2', error: 'g2: connect ECONNREFUSED', port: 8000 },
    { op: 'endpoints', replica: null, model: null, host: 'rt-2', error: 'rt-2: connect ECONNREFUSED' },
  ]);
  assert.equal(
    out.routerTables.map((r) => r.ok),
    [true, false],
  );
  assert.equal([out.started, out.failed], [2, 1]);
});

test('a start the agent refuses is reported per action, the rest of its node still starts', async () => {
  const cfg = config([node('g1')]);
  const t = fakeTransport({ refuse: ['llama-1'] });
  const out = await executePlan(plan([start('llama-0', 'llama', ['g1']), start('llama-1', 'llama', ['g1'], 8001)]), {
    config: cfg,
    fleet: fleet(cfg, []),
    transport: t,
  });
  assert.equal(
    out.results.map((r) => [r.replica, r.status, r.error]),
    [
      ['llama-0', 'ok', undefined],
      ['llama-1', 'failed', 'g1: no such GPU'],
    ],
  );
});

test('ranks of a multi-node start that did start are stopped when another rank failed', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const t = fakeTransport({ down: ['g2'] });
  const out = await executePlan(plan([start('big-0', 'big', ['g1', 'g2'])]), { config: cfg, fleet: fleet(cfg, []), transport: t });
  assert.is(out.results[0]!.status, 'failed');
  const agentCalls = t.calls.filter((c) => !c.command.endsWith('endpoints')).map(kind);
  assert.equal(agentCalls.slice(0, 2).sort(), ['g1:start=big-0;stop=', 'g2:start=big-0;stop=']);
  assert.is(agentCalls[2], 'g1:start=;stop=big-0');
});

test('a stop skips ranks on lost nodes and reports ranks on unreachable ones', async () => {
  const cfg = config([node('g1'), node('g2'), node('g3')]);
  const f = fleet(cfg, [], { g2: 'lost', g3: 'unreachable' });
  const t = fakeTransport();
  const out = await executePlan(plan([stop('big-0', 'big', ['g1', 'g2']), stop('llama-0', 'llama', ['g3'])]), {
    config: cfg,
    fleet: f,
    transport: t,
  });
  assert.equal(
    t.calls.map(kind).filter((k) => !k.startsWith('table')),
    ['g1:start=;stop=big-0'],
  );
  assert.equal(
    out.results.map((r) => r.status),
    ['ok', 'failed'],
  );
});

test('a running replica is not stopped while a router that did not take the table without it may still send it requests', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [
    replica('old-0', 'gone', ['g1'], 'running'),
    replica('bad-0', 'gone', ['g1'], 'failed', 8001),
    replica('llama-0', 'llama', ['g2'], 'running'),
    replica('llama-1', 'llama', ['g2'], 'running', 8001),
  ]);
  const t = fakeTransport({ down: ['rt-2'] });
  const out = await executePlan(plan([stop('old-0', 'gone', ['g1']), stop('bad-0', 'gone', ['g1']), stop('llama-1', 'llama', ['g2'], ['llama-0'])]), {
    config: cfg,
    fleet: f,
    transport: t,
  });
  const stops = t.calls.filter((c) => c.command.endsWith('apply')).flatMap((c) => c.input.stop);
  // A model models.yaml no longer names is stopped with the default stopGrace (30 s).
  assert.equal(stops, [{ replica: 'bad-0', graceSeconds: 30 }]);
  assert.equal(
    out.results.map((r) => `${r.replica} ${r.status} ${r.reason ?? ''}`.trim()),
    [
      'old-0 deferred still in the table of router rt-2, which did not take the new one',
      'bad-0 ok',
      'llama-1 deferred still in the table of router rt-2, which did not take the new one',
    ],
  );
  assert.equal(
    out.failures.map((x) => `${x.op}@${x.host}`),
    ['endpoints@rt-2', 'endpoints@rt-2'],
  ); // both pushes
});

test('an empty plan only refreshes the router tables', async () => {
  const cfg = config([node('g1')]);
  const t = fakeTransport();
  const out = await executePlan(plan([]), { config: cfg, fleet: fleet(cfg, []), transport: t });
  assert.equal(t.calls.map(kind), ['table@rt-1', 'table@rt-2']);
  assert.equal([out.started, out.stopped, out.results.length], [0, 0, 0]);
});

test.run();
