import * as assert from 'uvu/assert';
import http, { type ServerResponse } from 'node:http';
import { chat, clientAgent, eventually, eventuallyAsync, routerSuite } from './helpers.js';
import { FakeTimers } from './fake-timers.js';
import { maxOut, nextEjection } from '../../src/router/liveness.js';
import { getValidator } from '../../src/util/schema.js';
import type { RouterEndpoints } from '../../src/types/snapshot.js';

const { test, engine, router: startRouter } = routerSuite('router ejection');

/** Model m over these replicas (id: URL, in order), routed least-inflight: one replica among others. */
function leastInflight(replicas: Record<string, string>, settings?: RouterEndpoints['settings']): RouterEndpoints {
  const m = Object.entries(replicas).map(([replica, url]) => ({ replica, url }));
  return { version: 1, models: { m }, routing: { m: 'least-inflight' }, ...(settings ? { settings } : {}) };
}

const T0 = Date.parse('2026-11-29T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

test('an ejection lasts ejectFor, doubling within a run (episodes < 2 x ejectFor apart) up to 5 minutes; a later one starts a new run', () => {
  const first = nextEjection(null, 'errors', T0, 30_000);
  assert.equal(first, { sinceMs: T0, untilMs: T0 + 30_000, reason: 'errors', count: 1, out: true });
  const second = nextEjection(first, 'stalled', first.untilMs + 59_999, 30_000);
  assert.equal([second.sinceMs, second.untilMs - (first.untilMs + 59_999), second.count, second.reason], [T0, 60_000, 2, 'stalled']);
  const fresh = nextEjection(first, 'errors', first.untilMs + 60_000, 30_000);
  assert.equal([fresh.sinceMs, fresh.count, fresh.untilMs - fresh.sinceMs], [first.untilMs + 60_000, 1, 30_000]);
});

test('the doubling stops at 5 minutes', () => {
  let run = nextEjection(null, 'errors', T0, 100_000);
  const lengths: number[] = [run.untilMs - T0];
  for (let i = 0; i < 3; i++) {
    const at = run.untilMs + 1;
    run = nextEjection(run, 'errors', at, 100_000);
    lengths.push(run.untilMs - at);
  }
  assert.equal(lengths, [100_000, 200_000, 300_000, 300_000]);
});

test('at most ceil(n/2) of n replicas out: 1 of 1, 1 of 2, 2 of 3', () => {
  assert.equal([maxOut(1), maxOut(2), maxOut(3), maxOut(4)], [1, 1, 2, 2]);
});

function failing(status = 500) {
  return engine('bad', (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
}

test('consecutiveErrors failures in a row eject a replica: usage lists it (errors, since, until, count) and requests go elsewhere', async () => {
  const timers = new FakeTimers(T0);
  const bad = await failing();
  const good = await engine('good');
  const router = await startRouter({ timers });
  await router.put(leastInflight({ 'm-bad': bad.url, 'm-good': good.url }, { m: { consecutiveErrors: 3, ejectForMs: 10_000 } }));
  const statuses: number[] = [];
  while (bad.received.length < 3) statuses.push((await chat(router.port, 'm')).status);
  const usage = await router.usage();
  assert.equal(usage.ejected, { 'm-bad': { since: iso(T0), until: iso(T0 + 10_000), reason: 'errors', count: 1 } });
  assert.equal(getValidator('router-usage')(usage), { ok: true }, 'the reconciler takes the reply as it is');
  for (let i = 0; i < 5; i++) assert.is((await chat(router.port, 'm')).json.engine, 'good');
  assert.is(bad.received.length, 3, 'nothing more was sent to the ejected replica');
  timers.advance(10_000);
  assert.equal((await router.usage()).ejected, {}, 'back in rotation once ejectFor is over');
});

test('a success between failures resets the count: failures must be in a row', async () => {
  const timers = new FakeTimers(T0);
  let n = 0;
  const flaky = await engine('flaky', (_req, res) => {
    const status = n++ % 2 === 0 ? 500 : 200;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
  const router = await startRouter({ timers, liveness: { consecutiveErrors: 2 } });
  await router.setTable({ m: [{ replica: 'm-0', url: flaky.url }] });
  for (let i = 0; i < 8; i++) await chat(router.port, 'm');
  assert.equal((await router.usage()).ejected, {});
  assert.equal((await router.usage()).served['m-0'], { requests: 8, errors: 4 });
});

test('of two failing replicas only one is ejected (never more than ceil(n/2))', async () => {
  const timers = new FakeTimers(T0);
  const a = await failing();
  const b = await failing(502);
  const router = await startRouter({ timers, liveness: { consecutiveErrors: 2 } });
  await router.put(leastInflight({ 'm-0': a.url, 'm-1': b.url }));
  for (let i = 0; i < 10; i++) await chat(router.port, 'm');
  assert.equal(Object.keys((await router.usage()).ejected).length, 1);
});

/** An engine that takes a streaming request and then says nothing at all (headers included) until released. */
function silentEngine(name: string) {
  const held: ServerResponse[] = [];
  return engine(name, (_req, res) => void held.push(res)).then((e) => ({ engine: e, held }));
}

function streamChat(port: number, model: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent: clientAgent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a stalled replica (a stream in flight, no byte for stallAfter) is ejected; its request that sent nothing is retried on another', async () => {
  const timers = new FakeTimers(T0);
  const stuck = await silentEngine('stuck');
  const good = await engine('good', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {"ok":true}\n\ndata: [DONE]\n\n');
  });
  const router = await startRouter({ timers });
  await router.put(leastInflight({ 'm-stuck': stuck.engine.url, 'm-good': good.url }, { m: { stallAfterMs: 60_000 } }));
  // least-inflight starts at the first replica.
  const reply = streamChat(router.port, 'm');
  await eventually(() => stuck.held.length === 1);
  timers.advance(59_000);
  assert.equal((await router.usage()).ejected, {}, 'not before stallAfter');
  timers.advance(2_000);
  const r = await reply;
  assert.equal([r.status, r.text], [200, 'data: {"ok":true}\n\ndata: [DONE]\n\n'], 'answered by the other replica');
  const ejected = (await router.usage()).ejected['m-stuck'];
  assert.is(ejected.reason, 'stalled');
  assert.is(ejected.count, 1);
  assert.equal((await router.usage()).served['m-stuck'], { requests: 1, errors: 0 }, 'the cut attempt is not counted as the replica failing');
});

test('a started stream on a replica that stalls ends with an SSE error event and closes', async () => {
  const timers = new FakeTimers(T0);
  const half = await engine('half', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"content":"He"}}]}\n\n');
  });
  const other = await engine('other');
  const router = await startRouter({ timers, liveness: { stallAfterMs: 10_000 } });
  await router.put(leastInflight({ 'm-half': half.url, 'm-other': other.url }));
  const reply = streamChat(router.port, 'm');
  await eventuallyAsync(async () => (await router.usage()).inflight['m-half'] === 1);
  // Let the sweep see the first chunk, then nothing more.
  await new Promise((r) => setTimeout(r, 50));
  timers.advance(1_000);
  timers.advance(11_000);
  const r = await reply;
  assert.is(r.status, 200);
  assert.ok(r.text.startsWith('data: {"choices":[{"delta":{"content":"He"}}]}\n\n'), r.text);
  assert.match(r.text, /event: error\ndata: \{"error":\{"message":"[^"]+","type":"server_error","param":null,"code":"upstream_unavailable"\}\}\n\n$/);
  await eventuallyAsync(async () => (await router.usage()).inflight['m-half'] === 0);
});

test('a slow stream that sends a chunk just under stallAfter each time is never ejected', async () => {
  const timers = new FakeTimers(T0);
  const streams: ServerResponse[] = [];
  const slow = await engine('slow', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    streams.push(res);
  });
  const router = await startRouter({ timers, liveness: { stallAfterMs: 10_000 } });
  await router.setTable({ m: [{ replica: 'm-0', url: slow.url }] });
  const reply = streamChat(router.port, 'm');
  await eventually(() => streams.length === 1);
  for (let i = 0; i < 5; i++) {
    timers.advance(9_000);
    streams[0]!.write(`data: ${i}\n\n`);
    await eventuallyAsync(async () => (await router.usage()).inflight['m-0'] === 1);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal((await router.usage()).ejected, {}, `chunk ${i}`);
  }
  streams[0]!.end('data: [DONE]\n\n');
  const r = await reply;
  assert.is(r.text, 'data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: [DONE]\n\n');
});

test('a lone replica that is ejected: its requests wait, and are sent when the ejection ends', async () => {
  const timers = new FakeTimers(T0);
  let fail = true;
  const e = await engine('e', (_req, res) => {
    res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
  const router = await startRouter({ timers, liveness: { consecutiveErrors: 1, ejectForMs: 5_000 } });
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  assert.is((await chat(router.port, 'm')).status, 500);
  assert.is((await router.usage()).ejected['m-0'].count, 1);
  fail = false;
  const waiting = chat(router.port, 'm');
  await eventuallyAsync(async () => (await router.usage()).waiting['m']?.count === 1);
  assert.equal((await router.usage()).waiting, { m: { count: 1, oldest: iso(T0) } });
  timers.advance(5_000);
  assert.is((await waiting).status, 200);
  assert.equal((await router.usage()).waiting, {});
});

test.run();
