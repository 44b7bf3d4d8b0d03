// Data path over control path (docs/placement.md#5-lost): a lost node's replica that a
// router still lists and does not eject keeps that route until the model's
// replacements are in that router's table; lost means "replace", not "cut".
// One the router ejects, or does not list, goes at once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentEjections, endpointTable } from '../../src/apply/router-tables.js';
import { executePlan } from '../../src/apply/executor.js';
import type { Plan } from '../../src/types/plan.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { config, fakeTransport, fleet, node, replica } from './fixtures.js';

const cfg = config([node('a'), node('b'), node('c')]);
const OLD = { replica: 'llama-0', url: 'http://a.example:8001' };
const NEW = { replica: 'llama-1', url: 'http://b.example:8002' };
const lostOld = { ...replica('llama-0', 'llama', ['a'], 'running', 8001), lost: true };
const replacement = replica('llama-1', 'llama', ['b'], 'running', 8002);

test('a lost replica the router lists and does not eject keeps its route while no replacement runs', () => {
  const f = fleet(cfg, [lostOld], { a: 'lost' });
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [OLD] }).models.llama, [OLD]);
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [OLD] }, new Set(['other-0'])).models.llama, [OLD], "another replica's ejection does not count");
});

test('while its replacement runs but is not yet in the router’s table both are routed; once the router holds the replacement, the lost route goes', () => {
  const f = fleet(cfg, [lostOld, replacement], { a: 'lost' });
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [OLD] }).models.llama, [OLD, NEW], 'the new route is added, the old one kept');
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [OLD, NEW] }).models.llama, [NEW], 'the replacement is routed: the lost route is cut');
});

test('a lost replica the router ejected, or does not list, is cut at once', () => {
  const f = fleet(cfg, [lostOld], { a: 'lost' });
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [OLD] }, new Set(['llama-0'])).models.llama, []);
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [] }).models.llama, [], 'never added from a report');
  assert.equal(endpointTable(cfg, f, new Set(), null).models.llama, [], 'a router that did not say what it holds keeps nothing');
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [{ ...OLD, url: 'http://attacker.invalid/x' }] }).models.llama, [], 'only at the built URL');
  assert.equal(endpointTable(cfg, f, new Set(['llama-0']), { llama: [OLD] }).models.llama, [], 'leaving wins');
});

test('only as many lost routes are kept as the model lacks: models.yaml asks for 2, one replacement routed, one of two lost kept (lowest id)', () => {
  const two = { ...cfg, models: cfg.models.map((m) => (m.name === 'llama' ? { ...m, replicas: 2 } : m)) };
  const lost2 = { ...replica('llama-2', 'llama', ['a'], 'running', 8003), lost: true };
  const f = fleet(two, [lostOld, replacement, lost2], { a: 'lost' });
  const OLD2 = { replica: 'llama-2', url: 'http://a.example:8003' };
  assert.equal(endpointTable(two, f, new Set(), { llama: [OLD, NEW, OLD2] }).models.llama, [OLD, NEW]);
  assert.equal(endpointTable(two, f, new Set(), { llama: [OLD, OLD2] }).models.llama, [OLD, NEW, OLD2], 'none routed yet: both kept');
  const scaledToZero = { ...cfg, models: cfg.models.map((m) => (m.name === 'llama' ? { ...m, replicas: 0 } : m)) };
  assert.equal(
    endpointTable(scaledToZero, fleet(scaledToZero, [lostOld], { a: 'lost' }), new Set(), { llama: [OLD] }).models.llama,
    [],
    'a model asked for none keeps none',
  );
});

const usage = (name: string, ejected: string[]): RouterObservation => ({
  name,
  reachable: true,
  report: {
    version: 1,
    startedAt: '2026-11-29T07:00:00Z',
    lastUsed: {},
    table: { llama: [OLD] },
    ejected: Object.fromEntries(
      ejected.map((id) => [id, { since: '2026-11-29T07:59:00Z', until: '2026-11-29T08:00:30Z', reason: 'errors' as const, count: 1 }]),
    ),
  },
});

test('each router is judged by its own usage: the one that ejects the lost replica gets a table without it, the other keeps it', async () => {
  const routers = [usage('rt-1', []), usage('rt-2', ['llama-0'])];
  assert.equal(
    [...currentEjections([...routers, { name: 'rt-3', reachable: false, error: 'timeout' }])].map(([k, v]) => [k, [...v]]),
    [
      ['rt-1', []],
      ['rt-2', ['llama-0']],
      ['rt-3', []],
    ],
  );
  const transport = fakeTransport();
  const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
  await executePlan(empty, { config: cfg, fleet: fleet(cfg, [lostOld], { a: 'lost' }), transport, routers });
  const tables = transport.calls.filter((c) => c.command.endsWith(' endpoints')).map((c) => [c.host, c.input.models.llama]);
  assert.equal(tables, [
    ['rt-1', [OLD]],
    ['rt-2', []],
  ]);
});

test.run();
