// models.yaml `routing` on its way to the routers: validated, resolved, and sent in the table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { endpointTable } from '../../src/apply/router-tables.js';
import { checkEndpoints } from '../../src/router/endpoints.js';
import { fleet, replica } from '../apply/fixtures.js';
import { TINY_CLUSTER } from '../fixtures/index.js';

const models = (extra: string) => `apiVersion: llmgw/v1
kind: Models
models:
  - { name: chat, weights: org/chat, engine: vllm, gpus: 1${extra} }
  - { name: embed, weights: org/embed, engine: vllm, gpus: 1, routing: least-inflight }
`;
const load = (m: string) =>
  parseConfig({ cluster: { name: 'cluster.yaml', text: TINY_CLUSTER }, models: { name: 'models.yaml', text: m } }, { env: { HOME: '/h', USER: 'op' } });

test('routing is resolved only where models.yaml names it; the table lists those modes and the router accepts it', () => {
  const r = load(models(''));
  assert.ok(r.ok);
  assert.equal(
    r.config.models.map((m) => m.routing),
    [undefined, 'least-inflight'],
  );
  const f = fleet(r.config, [replica('chat-0', 'chat', ['n1'], 'running')]);
  const table = endpointTable(r.config, f, new Set());
  assert.equal(table.routing, { embed: 'least-inflight' });
  assert.equal(
    table.models['chat']!.map((e) => e.replica),
    ['chat-0'],
  );
  assert.ok(checkEndpoints(table).ok);
});

test('a config that names no routing sends the table in its old form (no routing key)', () => {
  const r = load(models('').replace(', routing: least-inflight', ''));
  assert.ok(r.ok);
  assert.not.ok('routing' in endpointTable(r.config, fleet(r.config, []), new Set()));
});

test('routing: prefix is kept as written; an unknown mode is a validation error at its line', () => {
  const ok = load(models(', routing: prefix'));
  assert.ok(ok.ok && ok.config.models[0]!.routing === 'prefix');
  const bad = load(models(', routing: round-robin'));
  assert.not.ok(bad.ok);
  if (bad.ok) return;
  assert.ok(
    bad.errors.some((e) => e.file === 'models.yaml' && e.line === 4 && e.path.startsWith('models[0].routing')),
    JSON.stringify(bad.errors),
  );
});

test('the router refuses a table whose routing names an unknown mode, and accepts the old form', () => {
  const bad = checkEndpoints({ version: 1, models: { m: [] }, routing: { m: 'random' } });
  assert.not.ok(bad.ok);
  assert.ok(checkEndpoints({ version: 1, models: { m: [] } }).ok);
});

test.run();
