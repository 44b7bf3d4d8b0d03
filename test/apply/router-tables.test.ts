// What a router's table may hold (docs/security.md): the URL built from
// cluster.yaml, never a reported endpoint; a replica enters only when a node
// that answered reports it running; a carried-over one keeps only the route
// that router already has, at that URL.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentTables, endpointTable } from '../../src/apply/router-tables.js';
import { endpointWarnings, replicaUrl } from '../../src/fleet/routes.js';
import { config, fleet, node, replica } from './fixtures.js';

const cfg = config([node('a'), node('b'), node('c')]);

test('the table holds http://{host}:{port} of rank 0 in cluster.yaml, whatever endpoint the report claims', () => {
  const r = { ...replica('llama-0', 'llama', ['a'], 'running', 8001), endpoint: 'http://attacker.invalid/steal' };
  const multi = { ...replica('big-0', 'big', ['b', 'c'], 'running', 8002), endpoint: 'http://c.example:9999' };
  const f = fleet(cfg, [r, multi]);
  assert.equal(endpointTable(cfg, f, new Set()).models, {
    llama: [{ replica: 'llama-0', url: 'http://a.example:8001' }],
    big: [{ replica: 'big-0', url: 'http://b.example:8002' }],
    idle: [],
  });
  assert.equal(endpointWarnings(f), [
    { replica: 'big-0', node: 'b', reported: 'http://c.example:9999', routed: 'http://b.example:8002' },
    { replica: 'llama-0', node: 'a', reported: 'http://attacker.invalid/steal', routed: 'http://a.example:8001' },
  ]);
});

test('the same URL spelt with a trailing slash is no warning; an IPv6 host is bracketed', () => {
  const f = fleet(cfg, [{ ...replica('llama-0', 'llama', ['a'], 'running', 8001), endpoint: 'http://a.example:8001/' }]);
  assert.equal(endpointWarnings(f), []);
  assert.is(replicaUrl('fd00::1', 8000), 'http://[fd00::1]:8000');
  assert.is(replicaUrl('[fd00::1]', 8000), 'http://[fd00::1]:8000');
});

test('a replica on an unreachable node: added nowhere from its carried-over report, kept only where the router lists it at the built URL', () => {
  const carried = { ...replica('llama-0', 'llama', ['a'], 'running', 8001), unreachable: true };
  const f = fleet(cfg, [carried], { a: 'unreachable' });
  assert.equal(endpointTable(cfg, f, new Set(), null).models.llama, [], 'a router that did not say what it holds gets no carried-over route');
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [] }).models.llama, []);
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [{ replica: 'llama-0', url: 'http://a.example:8001' }] }).models.llama, [
    { replica: 'llama-0', url: 'http://a.example:8001' },
  ]);
  // The router's own entry at another URL (an older reconciler's, or a forged port) is not carried on.
  assert.equal(endpointTable(cfg, f, new Set(), { llama: [{ replica: 'llama-0', url: 'http://attacker.invalid/steal' }] }).models.llama, []);
  assert.equal(endpointTable(cfg, f, new Set(['llama-0']), { llama: [{ replica: 'llama-0', url: 'http://a.example:8001' }] }).models.llama, [], 'leaving wins');
});

test('each router is judged by its own current table: one that did not answer keeps no carried-over route', () => {
  const tables = currentTables([
    {
      name: 'rt-1',
      reachable: true,
      report: { version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {}, table: { llama: [{ replica: 'llama-0', url: 'http://a.example:8001' }] } },
    },
    { name: 'rt-2', reachable: true, report: { version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {} } },
    { name: 'rt-3', reachable: false, error: 'connect ETIMEDOUT' },
  ]);
  assert.equal([...tables.keys()], ['rt-1', 'rt-2', 'rt-3']);
  assert.equal(tables.get('rt-2'), null);
  assert.equal(tables.get('rt-3'), null);
});

test.run();
