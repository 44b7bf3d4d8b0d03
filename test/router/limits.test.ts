// Bounded memory under abuse: --max-buffered (request bytes held across all
// requests) and --max-connections, each refused with OpenAI's error JSON.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { clientAgent, engineTracker, request, withRouter, type TestRouter } from './helpers.js';
import { openAiError, rawExchange, type RawAnswer } from './raw-client.js';

const test = suite('router limits');
const { engine, closeAll } = engineTracker();
let router: TestRouter | null = null;
const sockets: net.Socket[] = [];

test.after.each(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await router?.close();
  router = null;
  await closeAll();
});
test.after(() => clientAgent.destroy());

/** A chat body of exactly `size` bytes. */
function bodyOf(size: number): string {
  const base = '{"model":"m","pad":""}';
  return `{"model":"m","pad":"${'x'.repeat(size - base.length)}"}`;
}

const head = (length: number) => `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

test('past --max-buffered, the request holding the most bytes while still uploading is refused with 503; a small request and the rest go through', async () => {
  router = await withRouter({ maxBufferedBytes: 64 * 1024, maxBodyBytes: 1024 * 1024 });
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const big = bodyOf(200 * 1024);
  const medium = bodyOf(40 * 1024);
  let bSocket!: net.Socket;
  // A: 40 KiB of a 200 KiB body, then nothing more. B: 30 KiB of a 40 KiB body.
  const a = rawExchange(router.port, (s) => s.write(head(big.length) + big.slice(0, 40 * 1024)));
  const b: Promise<RawAnswer> = rawExchange(router.port, (s) => {
    bSocket = s;
    s.write(head(medium.length) + medium.slice(0, 30 * 1024));
  });
  const refused = await a;
  assert.is(refused.status, 503);
  assert.match(refused.head, /\r\nconnection: close/i);
  assert.match(refused.head, /\r\nretry-after: 1/i);
  assert.is(openAiError(refused.body)!.code, 'overloaded');
  const small = await request(router.port, '/v1/chat/completions', { model: 'm' });
  assert.is(small.status, 200, 'a normal request still gets through');
  bSocket.write(medium.slice(30 * 1024));
  const finished = await b;
  assert.is(finished.status, 200, 'the smaller upload finished and was served');
  assert.is(e.received.length, 2);
});

test('a body that alone is over --max-buffered is refused with 503 and the router stays up', async () => {
  router = await withRouter({ maxBufferedBytes: 16 * 1024, maxBodyBytes: 1024 * 1024 });
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const big = bodyOf(32 * 1024);
  const r = await rawExchange(router.port, head(big.length) + big);
  assert.equal([r.status, openAiError(r.body)?.code], [503, 'overloaded']);
  assert.is(e.received.length, 0);
  assert.is((await request(router.port, '/v1/chat/completions', { model: 'm' })).status, 200);
});

/** A kept-alive connection that has been served once (so the router has surely accepted it). */
function heldConnection(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('GET /v1/models HTTP/1.1\r\nHost: r\r\n\r\n'));
    sockets.push(s);
    s.once('data', () => resolve(s));
    s.on('error', reject);
  });
}

test('past --max-connections, a new connection is answered 503 in the OpenAI shape and closed; a freed slot is used again', async () => {
  router = await withRouter({ maxConnections: 2 });
  const [one] = [await heldConnection(router.port), await heldConnection(router.port)];
  const third = await rawExchange(router.port, 'GET /v1/models HTTP/1.1\r\nHost: r\r\n\r\n');
  assert.is(third.status, 503);
  assert.is(openAiError(third.body)!.code, 'too_many_connections');
  assert.match(third.head, /\r\nconnection: close/i, 'the connection is closed');
  const closed = new Promise((r) => one.once('close', r));
  one.destroy();
  await closed;
  let again: RawAnswer | null = null;
  // The router learns of the close on its next turn: a few tries, not a timer.
  for (let i = 0; i < 50 && again?.status !== 200; i++)
    again = await rawExchange(router.port, 'GET /v1/models HTTP/1.1\r\nHost: r\r\nConnection: close\r\n\r\n');
  assert.is(again!.status, 200);
});

test.run();
