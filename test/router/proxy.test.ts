import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http, { type ServerResponse } from 'node:http';
import { chat, clientAgent, eventually, leaveAtFirstChunk, request, engineTracker, withRouter, type Engine, type TestRouter } from './helpers.js';

const test = suite('router proxy');

let router: TestRouter;
const { engine, closeAll: closeEngines } = engineTracker();

test.before(async () => {
  router = await withRouter({ maxBodyBytes: 1024 });
});

test.after.each(closeEngines);

test.after(async () => {
  await router.close();
  clientAgent.destroy();
});

/** An engine that holds every request until the test answers it. */
async function holdingEngine(name: string): Promise<{ engine: Engine; held: ServerResponse[] }> {
  const held: ServerResponse[] = [];
  const e = await engine(name, (_req, res) => held.push(res));
  return { engine: e, held };
}

function answer(res: ServerResponse, name: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ engine: name }));
}

test('each request goes to a replica of the model it names, path and body intact', async () => {
  const a = await engine('a');
  const b = await engine('b');
  await router.setTable({ m1: [{ replica: 'm1-0', url: a.url }], m2: [{ replica: 'm2-0', url: b.url }] });
  const r1 = await chat(router.port, 'm1', { seq: 1 });
  const r2 = await request(router.port, '/v1/embeddings', { model: 'm2', input: 'x', seq: 2 });
  assert.is(r1.status, 200);
  assert.equal(r1.json, { engine: 'a', model: 'm1', seq: 1 });
  assert.equal(r2.json, { engine: 'b', model: 'm2', seq: 2 });
  assert.is(a.received[0]!.path, '/v1/chat/completions');
  assert.is(b.received[0]!.path, '/v1/embeddings');
  assert.equal(a.received[0]!.body['messages'], [{ role: 'user', content: 'hi' }]);
});

test('least-inflight: the replica with fewer requests in flight gets the next one', async () => {
  const x = await holdingEngine('x');
  const y = await holdingEngine('y');
  await router.setTable(
    {
      m: [
        { replica: 'm-0', url: x.engine.url },
        { replica: 'm-1', url: y.engine.url },
      ],
    },
    { m: 'least-inflight' },
  );
  const first = chat(router.port, 'm');
  await eventually(() => x.held.length + y.held.length === 1);
  const busy = x.held.length === 1 ? x : y;
  const idle = busy === x ? y : x;
  const second = chat(router.port, 'm');
  await eventually(() => idle.held.length === 1);
  assert.is(busy.held.length, 1, 'the busy replica got nothing more');
  // Free the first replica: it now has 0 in flight against 1, so it gets the third.
  answer(busy.held[0]!, busy.engine.name);
  await first;
  const third = chat(router.port, 'm');
  await eventually(() => busy.held.length === 2);
  assert.is(idle.held.length, 1);
  answer(busy.held[1]!, busy.engine.name);
  answer(idle.held[0]!, idle.engine.name);
  assert.equal([(await second).json.engine, (await third).json.engine], [idle.engine.name, busy.engine.name]);
});

test('least-inflight: equally busy replicas take turns (round-robin)', async () => {
  const list = [await engine('a'), await engine('b'), await engine('c')];
  await router.setTable({ rr: list.map((e, i) => ({ replica: `rr-${i}`, url: e.url })) }, { rr: 'least-inflight' });
  const order: string[] = [];
  for (let i = 0; i < 6; i++) order.push((await chat(router.port, 'rr')).json.engine);
  assert.equal(order, ['a', 'b', 'c', 'a', 'b', 'c']);
});

test('a stream passes through chunk by chunk: the client sees chunk 1 before the engine sends chunk 2', async () => {
  let clientSawFirst!: () => void;
  const sawFirst = new Promise<void>((r) => (clientSawFirst = r));
  const sent: string[] = [];
  const e = await engine('s', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('data: {"n":1}\n\n');
    sent.push('1');
    void sawFirst.then(() => {
      sent.push('2');
      res.end('data: {"n":2}\n\ndata: [DONE]\n\n');
    });
  });
  await router.setTable({ s: [{ replica: 's-0', url: e.url }] });
  const chunks: string[] = [];
  let sentWhenFirstArrived: string[] = [];
  const result = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: router.port, path: '/v1/chat/completions', method: 'POST', agent: clientAgent }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (chunks.length === 0) sentWhenFirstArrived = [...sent];
        chunks.push(c);
        clientSawFirst();
      });
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: chunks.join('') }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 's', stream: true }));
  });
  assert.equal(sentWhenFirstArrived, ['1'], 'chunk 1 arrived while the engine still held chunk 2');
  assert.is(result.status, 200);
  assert.is(result.type, 'text/event-stream');
  assert.is(result.body, 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n');
  assert.ok(chunks.length >= 2);
});

test('a client that disconnects aborts the upstream request', async () => {
  let upstreamClosed = false;
  const e = await engine('s', (_req, res) => {
    res.on('close', () => (upstreamClosed = true));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"n":1}\n\n');
  });
  await router.setTable({ s: [{ replica: 's-0', url: e.url }] });
  await leaveAtFirstChunk(router.port, '/v1/completions', { model: 's', stream: true });
  await eventually(() => upstreamClosed);
  assert.ok(upstreamClosed);
});

test('an unknown model is 404 in the OpenAI error shape', async () => {
  await router.setTable({ known: [] });
  const r = await chat(router.port, 'nope');
  assert.is(r.status, 404);
  assert.equal(r.json, { error: { message: "The model 'nope' does not exist", type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
});

test('a known model with no replica past its waitTimeout is 503 with Retry-After and code model_starting', async () => {
  await router.put({ version: 1, models: { known: [] }, settings: { known: { waitTimeoutMs: 20 } } });
  const r = await chat(router.port, 'known');
  assert.is(r.status, 503);
  assert.is(r.headers['retry-after'], '5');
  assert.is(r.json.error.code, 'model_starting');
  assert.is(r.json.error.type, 'server_error');
});

test('a body over the limit is 413, whether announced by Content-Length or not', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const big = JSON.stringify({ model: 'm', pad: 'x'.repeat(2000) });
  const announced = await request(router.port, '/v1/chat/completions', big);
  assert.is(announced.status, 413);
  assert.is(announced.json.error.code, 'request_too_large');
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: router.port, path: '/v1/chat/completions', method: 'POST', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.write(big.slice(0, 1000));
    req.end(big.slice(1000));
  });
  assert.is(chunked, 413);
  assert.is(e.received.length, 0, 'nothing reached the engine');
});

test('a chunked request body is forwarded whole, with its length', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: router.port, path: '/v1/completions', method: 'POST', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.write('{"model":"m",');
    setTimeout(() => req.end('"prompt":"split"}'), 20);
  });
  assert.is(status, 200);
  assert.equal(e.received[0]!.body, { model: 'm', prompt: 'split' });
  assert.is(e.received[0]!.headers['content-length'], '30');
  assert.is(e.received[0]!.headers['transfer-encoding'], undefined);
});

test('bad JSON or a missing model is 400', async () => {
  const bad = await request(router.port, '/v1/chat/completions', '{"model":');
  assert.is(bad.status, 400);
  assert.is(bad.json.error.code, 'invalid_json');
  const missing = await request(router.port, '/v1/chat/completions', { messages: [] });
  assert.is(missing.status, 400);
  assert.is(missing.json.error.code, 'missing_model');
  const notString = await request(router.port, '/v1/chat/completions', { model: 7 });
  assert.is(notString.json.error.code, 'missing_model');
});

test('an upstream that refuses the connection is retried once on another replica', async () => {
  const dead = await engine('dead');
  await dead.close();
  const live = await engine('live');
  await router.setTable({
    m: [
      { replica: 'm-0', url: dead.url },
      { replica: 'm-1', url: live.url },
    ],
    lonely: [{ replica: 'lonely-0', url: dead.url }],
  });
  const replies = await Promise.all([1, 2, 3, 4].map(() => chat(router.port, 'm')));
  assert.equal(
    replies.map((r) => r.status),
    [200, 200, 200, 200],
  );
  assert.equal(
    replies.map((r) => r.json.engine),
    ['live', 'live', 'live', 'live'],
  );
  const lonely = await chat(router.port, 'lonely');
  assert.is(lonely.status, 502);
  assert.is(lonely.json.error.code, 'upstream_unavailable');
});

test('/v1/models lists the models that have a replica, in the OpenAI list shape', async () => {
  const e = await engine('a');
  await router.setTable({ zeta: [{ replica: 'zeta-0', url: e.url }], alpha: [{ replica: 'alpha-0', url: e.url }], empty: [] });
  const r = await request(router.port, '/v1/models', null, 'GET');
  assert.is(r.status, 200);
  assert.is(r.json.object, 'list');
  assert.equal(
    r.json.data.map((m: { id: string; object: string; owned_by: string }) => [m.id, m.object, m.owned_by]),
    [
      ['alpha', 'model', 'llmgw'],
      ['zeta', 'model', 'llmgw'],
    ],
  );
  const unknownPath = await request(router.port, '/v1/nothing', { model: 'alpha' });
  assert.is(unknownPath.status, 404);
  assert.is(unknownPath.json.error.code, 'unknown_url');
});

test('client headers reach the engine, hop-by-hop ones do not; engine headers come back', async () => {
  const e = await engine('h', (_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-engine': 'h', 'content-length': '2' });
    res.end('{}');
  });
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const r = await request(router.port, '/v1/chat/completions', { model: 'm' }, 'POST', { authorization: 'Bearer t', 'x-request-id': 'r1' });
  assert.is(r.status, 201);
  assert.is(r.headers['x-engine'], 'h');
  assert.is(r.headers['content-length'], '2');
  const got = e.received[0]!.headers;
  assert.is(got['authorization'], 'Bearer t');
  assert.is(got['x-request-id'], 'r1');
  assert.is(got['host'], `127.0.0.1:${e.port}`);
  assert.is(got['content-length'], String(JSON.stringify({ model: 'm' }).length));
});

test.run();
