// The router's front door against clients that use the corners of HTTP/1.1:
// raw sockets, so what is on the wire is exactly what the test wrote.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { clientAgent, request, engineTracker, withRouter, type TestRouter } from './helpers.js';

const test = suite('router front door');

let router: TestRouter;
const { engine, closeAll: closeEngines } = engineTracker();

test.before(async () => {
  router = await withRouter({ maxBodyBytes: 64 * 1024 });
});
test.after.each(closeEngines);
test.after(async () => {
  await router.close();
  clientAgent.destroy();
});

/** Write `text` to the router on a fresh socket; resolve with everything read until `done(read)` or the socket ends. */
function raw(text: string | ((s: net.Socket) => void), done: (read: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let read = '';
    const s = net.connect(router.port, '127.0.0.1', () => (typeof text === 'string' ? s.write(text) : text(s)));
    s.setEncoding('latin1');
    s.on('data', (c: string) => {
      read += c;
      if (done(read)) {
        s.destroy();
        resolve(read);
      }
    });
    s.on('end', () => resolve(read));
    s.on('error', reject);
    setTimeout(() => {
      s.destroy();
      reject(new Error(`no complete answer; read so far: ${JSON.stringify(read)}`));
    }, 3000).unref();
  });
}

const count = (text: string, re: RegExp): number => (text.match(re) ?? []).length;

test('Expect: 100-continue gets 100 Continue, then the body is forwarded and the engine never sees Expect', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const body = '{"model":"m","seq":7}';
  const read = await raw(
    (s) => {
      s.write(`POST /v1/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.once('data', () => s.write(body)); // only after the interim answer, as curl does
    },
    (r) => r.includes('"seq":7}'),
  );
  assert.match(read, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  assert.equal(e.received[0]!.body, { model: 'm', seq: 7 });
  assert.is(e.received[0]!.headers['expect'], undefined);
});

test('Expect: 100-continue for a body over the limit is refused with 413 at once, never invited with a 100', async () => {
  const read = await raw(`POST /v1/completions HTTP/1.1\r\nHost: r\r\nExpect: 100-continue\r\nContent-Length: ${1024 * 1024}\r\n\r\n`, (r) =>
    r.includes('request_too_large'),
  );
  assert.match(read, /^HTTP\/1\.1 413 /);
  assert.not.match(read, /100 Continue/);
});

test('pipelined requests on one connection are all answered, in order', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const one = (seq: number): string => {
    const body = JSON.stringify({ model: 'm', seq });
    return `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
  const read = await raw(one(1) + one(2) + one(3), (r) => count(r, /"seq":\d/g) === 3);
  assert.is(count(read, /HTTP\/1\.1 200 OK/g), 3);
  assert.equal(
    [...read.matchAll(/"seq":(\d)/g)].map((m) => m[1]),
    ['1', '2', '3'],
  );
});

test('a chunked request body with extensions and trailers reaches the engine whole, with a length', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const read = await raw(
    'POST /v1/completions HTTP/1.1\r\nHost: r\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n' +
      'c;ext=1\r\n{"model":"m"\r\n9\r\n,"seq":5}\r\n0\r\nX-T: t\r\n\r\n',
    (r) => r.includes('"seq":5}'),
  );
  assert.match(read, /^HTTP\/1\.1 200 OK\r\n/);
  assert.equal(e.received[0]!.body, { model: 'm', seq: 5 });
  assert.is(e.received[0]!.headers['content-length'], '21');
  assert.is(e.received[0]!.headers['transfer-encoding'], undefined);
});

test('HEAD /v1/models answers the GET head with no body; other methods get 405 with Allow', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const head = await raw('HEAD /v1/models HTTP/1.1\r\nHost: r\r\nConnection: close\r\n\r\n', () => false);
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(head, /\r\ncontent-type: application\/json\r\n/i);
  assert.ok(head.endsWith('\r\n\r\n'), 'nothing after the head');
  const del = await request(router.port, '/v1/models', null, 'DELETE');
  assert.equal([del.status, del.headers['allow'], del.json.error.code], [405, 'GET, HEAD', 'method_not_allowed']);
  const get = await request(router.port, '/v1/chat/completions', null, 'GET');
  assert.equal([get.status, get.headers['allow']], [405, 'POST']);
});

test('GET /v1/models/{model} is the model object while it can be served, else 404 in the OpenAI shape', async () => {
  const e = await engine('a');
  await router.setTable({ 'llama-3.1-8b': [{ replica: 'l-0', url: e.url }], idle: [] });
  const r = await request(router.port, '/v1/models/llama-3.1-8b', null, 'GET');
  assert.is(r.status, 200);
  assert.equal([r.json.id, r.json.object, r.json.owned_by], ['llama-3.1-8b', 'model', 'llmgw']);
  const none = await request(router.port, '/v1/models/idle', null, 'GET');
  assert.equal([none.status, none.json.error.code, none.json.error.param], [404, 'model_not_found', 'model']);
});

test('an engine URL with a path prefix gets the request under that prefix, query intact', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: `${e.url}/engines/a/` }] });
  const r = await request(router.port, '/v1/chat/completions?trace=1', { model: 'm' });
  assert.is(r.status, 200);
  assert.is(e.received[0]!.path, '/engines/a/v1/chat/completions?trace=1');
});

test('a model name carrying CR LF and a header line is just an unknown model: 404 as JSON, no header injected', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const r = await request(router.port, '/v1/chat/completions', { model: 'm\r\nX-Injected: 1\r\n\r\nHTTP/1.1 200 OK' });
  assert.is(r.status, 404);
  assert.is(r.headers['x-injected'], undefined);
  assert.is(r.json.error.message, "The model 'm\r\nX-Injected: 1\r\n\r\nHTTP/1.1 200 OK' does not exist");
  assert.is(e.received.length, 0);
});

test('headers the client names in Connection are not forwarded; end-to-end ones are', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const r = await request(router.port, '/v1/chat/completions', { model: 'm' }, 'POST', {
    connection: 'keep-alive, X-Hop',
    'x-hop': 'secret of this hop',
    'x-end': 'kept',
  });
  assert.is(r.status, 200);
  const got = e.received[0]!.headers;
  // The engine's hop has its own Connection header, the router's (kept-alive), never the client's list.
  assert.equal([got['x-hop'], got['x-end'], got['connection']], [undefined, 'kept', 'keep-alive']);
});

test('a hostile body is refused, never a crash: deep nesting is 400, a body past the limit is 413, and the router still serves', async () => {
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const deep = await request(router.port, '/v1/chat/completions', '['.repeat(60_000));
  assert.equal([deep.status, deep.json.error.code], [400, 'invalid_json']);
  const nested = await request(router.port, '/v1/chat/completions', `{"x":${'['.repeat(30_000)}${']'.repeat(30_000)},"model":"m"}`);
  assert.is(nested.status, 200, 'deep but valid JSON is parsed');
  const flood = await raw(
    (s) => {
      s.write('POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nTransfer-Encoding: chunked\r\n\r\n');
      const piece = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 8; i++) s.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    },
    (r) => r.includes('request_too_large'),
  );
  assert.match(flood, /^HTTP\/1\.1 413 /);
  assert.match(flood, /\r\nconnection: close\r\n/i);
  const after = await request(router.port, '/v1/chat/completions', { model: 'm' });
  assert.is(after.status, 200);
});

test('a refused request that carries a body is answered and the connection closed, so its body is not read to the end', async () => {
  const read = await raw(
    (s) => {
      s.write('POST /v1/nothing HTTP/1.1\r\nHost: r\r\nTransfer-Encoding: chunked\r\n\r\n');
      s.write(`4000\r\n${'x'.repeat(0x4000)}\r\n`);
    },
    (r) => r.includes('unknown_url'),
  );
  assert.match(read, /^HTTP\/1\.1 404 /);
  assert.match(read, /\r\nconnection: close\r\n/i);
  const bodyless = await request(router.port, '/v1/nothing', null, 'GET');
  assert.equal([bodyless.status, bodyless.headers['connection']], [404, 'keep-alive']);
});

test.run();
