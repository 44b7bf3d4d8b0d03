// In-flight and served bookkeeping (router usage), drains, and the engine head timeout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import { chat, clientAgent, eventually, engineTracker, leaveAtFirstChunk, sleep, withRouter, type TestRouter } from './helpers.js';
import { startStubEngine, type StubEngine } from '../../src/sim/stub-engine.js';

const test = suite('router drain and served');
const { engine, closeAll } = engineTracker();
const stubs: StubEngine[] = [];
const servers: net.Server[] = [];
let router: TestRouter;

test.before.each(async () => {
  router = await withRouter({ upstreamHeaderTimeoutMs: 300 });
});
test.after.each(async () => {
  await router.close();
  await closeAll();
  await Promise.all(stubs.splice(0).map((s) => s.close()));
  for (const s of servers.splice(0)) s.close();
});
test.after(() => clientAgent.destroy());

/** One streamed chat through the router: the SSE text as received, or how it broke. */
function stream(port: number, model: string, content: string): Promise<{ status: number; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('close', () => resolve({ status: res.statusCode!, text, complete: res.complete }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model, stream: true, messages: [{ role: 'user', content }] }));
  });
}

/** An engine that accepts connections and never answers. */
async function silentEngine(): Promise<string> {
  const s = net.createServer((socket) => socket.on('error', () => undefined));
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`;
}

test('a replica taken out of the table keeps its streams: all 10 finish intact, usage counts them in flight until they end', async () => {
  const words = Array.from({ length: 12 }, (_, i) => `w${i}`).join(' ');
  const old = await startStubEngine({ model: 'm', answer: words, tokenDelayMs: 40 });
  const fresh = await startStubEngine({ model: 'm' });
  stubs.push(old, fresh);
  await router.setTable({ m: [{ replica: 'm-0', url: `http://127.0.0.1:${old.port}` }] });
  const streams = Array.from({ length: 10 }, (_, i) => stream(router.port, 'm', `conversation ${i}`));
  await eventually(() => old.stats().requests === 10, 5000);
  await router.setTable({ m: [{ replica: 'm-1', url: `http://127.0.0.1:${fresh.port}` }] });
  const during = await router.usage();
  assert.equal(during.inflight, { 'm-0': 10, 'm-1': 0 }, 'the removed replica is still reported with its 10 streams');
  assert.is((await chat(router.port, 'm')).status, 200, 'new requests go to the new table');
  const done = await Promise.all(streams);
  for (const d of done) {
    assert.is(d.status, 200);
    assert.ok(d.complete, 'the stream ended normally');
    const tokens = d.text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)).choices[0].delta.content)
      .join('');
    assert.is(tokens, words);
    assert.ok(d.text.endsWith('data: [DONE]\n\n'));
  }
  const after = await router.usage();
  assert.equal(after.inflight, { 'm-1': 0 });
  assert.equal(after.served, { 'm-0': { requests: 10, errors: 0 }, 'm-1': { requests: 1, errors: 0 } });
});

test('served counts 5xx answers and failed connections as errors, other answers as requests only', async () => {
  const failing = await startStubEngine({ model: 'm', failRate: 0.5 });
  stubs.push(failing);
  const notFound = await engine('nf', (_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{}');
  });
  const dead = await engine('dead');
  await dead.close();
  await router.setTable({
    f: [{ replica: 'f-0', url: `http://127.0.0.1:${failing.port}` }],
    n: [{ replica: 'n-0', url: notFound.url }],
    d: [{ replica: 'd-0', url: dead.url }],
  });
  const fs = [await chat(router.port, 'f'), await chat(router.port, 'f'), await chat(router.port, 'f'), await chat(router.port, 'f')];
  assert.equal(
    fs.map((r) => r.status),
    [200, 500, 200, 500],
    "the engine's 500 is passed on as it is",
  );
  assert.is((await chat(router.port, 'n')).status, 404);
  assert.is((await chat(router.port, 'd')).status, 502);
  const served = (await router.usage()).served;
  assert.equal(served['f-0'], { requests: 4, errors: 2 });
  assert.equal(served['n-0'], { requests: 1, errors: 0 });
  // The lone dead replica is tried twice (the one retry goes to the same replica when it is the only one): two failed connections.
  assert.equal(served['d-0'], { requests: 2, errors: 2 });
});

test('an engine that accepts and never sends a head is given up after --upstream-header-timeout and the request retried on another replica', async () => {
  const silent = await silentEngine();
  const live = await engine('live');
  await router.setTable(
    {
      m: [
        { replica: 'm-0', url: silent },
        { replica: 'm-1', url: live.url },
      ],
    },
    { m: 'least-inflight' },
  );
  const replies = [await chat(router.port, 'm'), await chat(router.port, 'm')];
  assert.equal(
    replies.map((r) => [r.status, r.json.engine]),
    [
      [200, 'live'],
      [200, 'live'],
    ],
  );
  const served = (await router.usage()).served;
  // Round-robin sends each request to the silent engine first: each times out there once and is answered by the live one.
  assert.equal(served['m-0'], { requests: 2, errors: 2 });
  assert.equal(served['m-1'], { requests: 2, errors: 0 });
});

test('with no other replica, a head timeout is 504 in the OpenAI error shape (never retried on the same silent engine)', async () => {
  const silent = await silentEngine();
  await router.setTable({ m: [{ replica: 'm-0', url: silent }] });
  const r = await chat(router.port, 'm');
  assert.is(r.status, 504);
  assert.equal(r.json.error, { message: "No replica of 'm' sent a reply head in time", type: 'server_error', param: null, code: 'upstream_timeout' });
  assert.equal((await router.usage()).served['m-0'], { requests: 1, errors: 1 });
});

test('a client that leaves mid-stream is not an error of the replica, and its request leaves the in-flight count', async () => {
  const slow = await startStubEngine({ model: 'm', answer: 'a b c d e f g h', tokenDelayMs: 200 });
  stubs.push(slow);
  await router.setTable({ m: [{ replica: 'm-0', url: `http://127.0.0.1:${slow.port}` }] });
  await leaveAtFirstChunk(router.port, '/v1/chat/completions', { model: 'm', stream: true, messages: [] });
  let usage = await router.usage();
  for (let i = 0; i < 100 && usage.inflight['m-0'] !== 0; i++) {
    await sleep(10);
    usage = await router.usage();
  }
  assert.equal(usage.inflight, { 'm-0': 0 });
  assert.equal(usage.served['m-0'], { requests: 1, errors: 0 });
});

test.run();
