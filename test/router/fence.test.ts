import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chat, clientAgent, engineTracker, withRouter, type TestRouter } from './helpers.js';
import { runRouterClient } from '../../src/router/client.js';
import { fence } from '../../src/router/fence.js';

const test = suite('router fencing');

let router: TestRouter;
const { engine, closeAll: closeEngines } = engineTracker();

test.before.each(async () => {
  router = await withRouter();
});

test.after.each(async () => {
  await router.close();
  await closeEngines();
});

test.after(() => clientAgent.destroy());

function put(table: object): Promise<{ stdout: string; stderr: string; code: number }> {
  return runRouterClient('endpoints', JSON.stringify(table), { LLMGW_ROUTER_SOCKET: router.socket });
}

const lease = (epoch: number, holder = 'rc-a:1:abc') => ({ epoch, holder });

test('fence: a lower epoch is refused with "fenced: epoch N < M"; an equal or higher one is taken and raises the mark', () => {
  const t = (epoch?: number) => ({ version: 1 as const, models: {}, ...(epoch === undefined ? {} : { lease: lease(epoch) }) });
  assert.equal(fence(5, t(3)), { ok: false, error: 'fenced: epoch 3 < 5' });
  assert.equal(fence(5, t(5)), { ok: true, highest: 5 });
  assert.equal(fence(5, t(9)), { ok: true, highest: 9 });
  assert.equal(fence(0, t()), { ok: true, highest: 0 });
  assert.equal(fence(1, t()), { ok: false, error: 'fenced: epoch 0 < 1' });
});

test('a table from a stale holder is refused (ok:false, fenced) and the table in service stays', async () => {
  const a = await engine('a');
  const b = await engine('b');
  const fresh = await put({ version: 1, lease: lease(5, 'rc-b:1:new'), models: { m: [{ replica: 'm-0', url: a.url }] } });
  assert.is(fresh.code, 0);
  assert.equal(JSON.parse(fresh.stdout), { version: 1, ok: true });
  const stale = await put({ version: 1, lease: lease(3, 'rc-a:1:old'), models: { m: [{ replica: 'm-1', url: b.url }] } });
  assert.equal(JSON.parse(stale.stdout), { version: 1, ok: false, error: 'fenced: epoch 3 < 5' });
  assert.match(stale.stderr, /fenced: epoch 3 < 5/);
  assert.equal((await router.usage()).table, { m: [{ replica: 'm-0', url: a.url }] });
  assert.is((await chat(router.port, 'm')).json.engine, 'a');
});

test('a table without a lease is epoch 0: taken until the router has seen an epoch, refused after', async () => {
  const a = await engine('a');
  const first = await put({ version: 1, models: { m: [{ replica: 'm-0', url: a.url }] } });
  assert.equal(JSON.parse(first.stdout), { version: 1, ok: true });
  assert.equal(JSON.parse((await put({ version: 1, lease: lease(1), models: { m: [] } })).stdout), { version: 1, ok: true });
  const old = await put({ version: 1, models: { m: [{ replica: 'm-0', url: a.url }] } });
  assert.equal(JSON.parse(old.stdout), { version: 1, ok: false, error: 'fenced: epoch 0 < 1' });
  assert.equal((await router.usage()).table, { m: [] });
});

test('the same epoch again is taken (the holder renews and sends its next table)', async () => {
  const a = await engine('a');
  assert.equal(JSON.parse((await put({ version: 1, lease: lease(2), models: { m: [] } })).stdout), { version: 1, ok: true });
  assert.equal(JSON.parse((await put({ version: 1, lease: lease(2), models: { m: [{ replica: 'm-0', url: a.url }] } })).stdout), { version: 1, ok: true });
  assert.equal((await router.usage()).table, { m: [{ replica: 'm-0', url: a.url }] });
});

test('a lease that is not {epoch: integer >= 0, holder: string} is refused as a bad table, not taken as epoch 0', async () => {
  const bad = await put({ version: 1, lease: { epoch: -1, holder: 'x' }, models: {} });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /lease/);
});

test.run();
