import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chat, clientAgent, engineTracker, eventuallyAsync, request, withRouter, type TestRouter } from './helpers.js';
import { FakeTimers } from './fake-timers.js';
import { runRouterClient } from '../../src/router/client.js';
import { getValidator } from '../../src/util/schema.js';

const test = suite('router waiting and adapters');

const { engine, closeAll: closeEngines } = engineTracker();
let router: TestRouter | null = null;
const T0 = Date.parse('2026-11-29T08:00:00Z');

test.after.each(async () => {
  await router?.close();
  router = null;
  await closeEngines();
});
test.after(() => clientAgent.destroy());

test('a request for a model at 0 waits (usage: waiting count and oldest) and is sent the moment the table gives it a replica', async () => {
  const timers = new FakeTimers(T0);
  const e = await engine('a');
  router = await withRouter({ timers });
  await router.setTable({ m: [] });
  const first = chat(router.port, 'm', { seq: 1 });
  await eventuallyAsync(async () => (await router!.usage()).waiting['m']?.count === 1);
  timers.advance(1_000);
  const second = chat(router.port, 'm', { seq: 2 });
  await eventuallyAsync(async () => (await router!.usage()).waiting['m']?.count === 2);
  const usage = await router.usage();
  assert.equal(usage.waiting, { m: { count: 2, oldest: new Date(T0).toISOString() } });
  assert.equal(getValidator('router-usage')(usage), { ok: true }, 'the reconciler takes the reply as it is');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const [r1, r2] = await Promise.all([first, second]);
  assert.equal([r1.status, r1.json.seq, r2.status, r2.json.seq], [200, 1, 200, 2]);
  assert.equal(
    e.received.map((x) => x.body['seq']),
    [1, 2],
    'oldest first',
  );
  assert.equal((await router.usage()).waiting, {});
});

test('past waitTimeout a waiting request gets 503, Retry-After and code model_starting', async () => {
  const timers = new FakeTimers(T0);
  router = await withRouter({ timers, liveness: { waitTimeoutMs: 300_000 } });
  await router.setTable({ m: [] });
  const r = chat(router.port, 'm');
  await eventuallyAsync(async () => (await router!.usage()).waiting['m']?.count === 1);
  timers.advance(299_999);
  assert.is((await router.usage()).waiting['m'].count, 1);
  timers.advance(1);
  const reply = await r;
  assert.equal([reply.status, reply.headers['retry-after'], reply.json.error.code, reply.json.error.type], [503, '5', 'model_starting', 'server_error']);
});

test('over --max-waiting (across all models) a request is refused with 503 model_starting at once', async () => {
  const timers = new FakeTimers(T0);
  router = await withRouter({ timers, maxWaiting: 2 });
  await router.setTable({ a: [], b: [] });
  const held = [chat(router.port, 'a'), chat(router.port, 'b')];
  await eventuallyAsync(async () => Object.keys((await router!.usage()).waiting).length === 2);
  const third = await chat(router.port, 'a');
  assert.equal([third.status, third.json.error.code], [503, 'model_starting']);
  timers.advance(10 * 60_000);
  for (const r of await Promise.all(held)) assert.is(r.status, 503);
});

test('a waiting request whose model leaves the table is answered 404', async () => {
  const timers = new FakeTimers(T0);
  router = await withRouter({ timers });
  await router.setTable({ m: [] });
  const r = chat(router.port, 'm');
  await eventuallyAsync(async () => (await router!.usage()).waiting['m']?.count === 1);
  await router.setTable({});
  assert.equal([(await r).status, (await r).json.error.code], [404, 'model_not_found']);
});

test('an adapter name goes to its base model replicas with the body unchanged; /v1/models and /v1/models/{adapter} show its parent', async () => {
  const e = await engine('base');
  router = await withRouter();
  await router.put({
    version: 1,
    models: { qwen: [{ replica: 'qwen-0', url: e.url }], idle: [] },
    settings: { qwen: { adapters: ['sql-lora'] }, idle: { adapters: ['idle-lora'] } },
  });
  const r = await chat(router.port, 'sql-lora', { seq: 7 });
  assert.equal(r.json, { engine: 'base', model: 'sql-lora', seq: 7 });
  assert.is((await router.usage()).served['qwen-0'].requests, 1);
  const list = await request(router.port, '/v1/models', null, 'GET');
  assert.equal(
    list.json.data.map((m: { id: string; parent?: string }) => [m.id, m.parent ?? null]),
    [
      ['qwen', null],
      ['sql-lora', 'qwen'],
    ],
    'models with a replica, and their adapters',
  );
  assert.is((await request(router.port, '/v1/models/sql-lora', null, 'GET')).json.parent, 'qwen');
  assert.is((await chat(router.port, 'other-lora')).status, 404);
});

test('a table whose adapter name is also a model, or an adapter of two models, is refused with the reason', async () => {
  router = await withRouter();
  const env = { LLMGW_ROUTER_SOCKET: router.socket };
  const clash = await runRouterClient('endpoints', JSON.stringify({ version: 1, models: { a: [], b: [] }, settings: { a: { adapters: ['b'] } } }), env);
  assert.is(clash.code, 1);
  assert.match(clash.stderr, /\/settings\/a\/adapters: 'b' is also a model's name/);
  const twice = await runRouterClient(
    'endpoints',
    JSON.stringify({ version: 1, models: { a: [], b: [] }, settings: { a: { adapters: ['x'] }, b: { adapters: ['x'] } } }),
    env,
  );
  assert.match(twice.stderr, /\/settings\/b\/adapters: 'x' is also an adapter of 'a'/);
});

for (const path of ['/v1/responses', '/v1/embeddings', '/v1/completions', '/v1/rerank', '/v1/score']) {
  test(`${path} is forwarded to the model's replica, path intact`, async () => {
    const e = await engine('a');
    router = await withRouter();
    await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
    const r = await request(router.port, path, { model: 'm', input: 'x' });
    assert.equal([r.status, r.json.engine, e.received[0]!.path], [200, 'a', path]);
  });
}

test.run();
