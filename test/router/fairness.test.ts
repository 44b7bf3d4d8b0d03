import * as assert from 'uvu/assert';
import net from 'node:net';
import type { ServerResponse } from 'node:http';
import { eventually, eventuallyAsync, routerSuite } from './helpers.js';
import { DEFAULT_MAX_BUFFERED_BYTES } from '../../src/router/server.js';
import { MAX_OVERFLOWING, OVERFLOW_HOLD_MS, PIPELINE_DEPTH } from '../../src/router/lane.js';
import { defaultEngineConnections, EngineSlots } from '../../src/router/engine-slots.js';

const { test, engine, router: startRouter } = routerSuite('router fairness under abuse');

function post(model: string, seq: number): string {
  const body = JSON.stringify({ model, seq, messages: [{ role: 'user', content: 'hi' }] });
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Responses read off one raw connection, split by their Content-Length. */
function reader(s: net.Socket): { statuses: number[]; bodies: string[] } {
  const out = { statuses: [] as number[], bodies: [] as string[] };
  let buf = '';
  s.on('data', (b: Buffer) => {
    buf += b.toString('latin1');
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      out.statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)![1]));
      out.bodies.push(buf.slice(end + 4, end + 4 + length));
      buf = buf.slice(end + 4 + length);
    }
  });
  return out;
}

test('the default --max-buffered is 64 MiB', () => {
  assert.is(DEFAULT_MAX_BUFFERED_BYTES, 64 * 1024 * 1024);
});

test('an overflowed connection is held one second, the Retry-After its 429 says, and at most 64 are held (docs/operations.md)', () => {
  assert.is(OVERFLOW_HOLD_MS, 1000);
  assert.is(MAX_OVERFLOWING, 64);
});

test('pipelined requests on one connection go upstream one at a time, and their answers come back in order', async () => {
  const held: ServerResponse[] = [];
  let most = 0;
  const e = await engine('a', (_req, res, body) => {
    held.push(res);
    most = Math.max(most, held.length);
    // Answer after a turn of the event loop, so a second request would have overlapped if it had been sent.
    setImmediate(() => {
      held.splice(held.indexOf(res), 1);
      const out = JSON.stringify({ seq: body['seq'] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
      res.end(out);
    });
  });
  const router = await startRouter();
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const s = net.connect(router.port, '127.0.0.1');
  const got = reader(s);
  s.write(Array.from({ length: 10 }, (_, i) => post('m', i)).join(''));
  await eventually(() => got.statuses.length === 10, 10_000);
  s.destroy();
  assert.is(most, 1, 'never two of its requests at the engine at once');
  assert.equal(
    got.bodies.map((b) => JSON.parse(b).seq),
    [...Array(10).keys()],
  );
  assert.is(e.received.length, 10);
});

test(`a connection that pipelines more than ${PIPELINE_DEPTH} behind the one in progress: those served, then one 429 held ${OVERFLOW_HOLD_MS} ms, then the close`, async () => {
  const held: ServerResponse[] = [];
  const e = await engine('a', (_req, res) => held.push(res));
  const router = await startRouter();
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const s = net.connect(router.port, '127.0.0.1');
  const got = reader(s);
  let closed = false;
  let closedAt = 0;
  s.on('close', () => {
    closed = true;
    closedAt = performance.now();
  });
  const total = PIPELINE_DEPTH + 4;
  const sentAt = performance.now();
  s.write(Array.from({ length: total }, (_, i) => post('m', i)).join(''));
  await eventually(() => held.length === 1);
  assert.is((await router.usage()).inflight['m-0'], 1, 'one request in flight for the whole connection');
  // Answer each held request as it arrives.
  const answerAll = setInterval(() => {
    for (const res of held.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    }
  }, 5);
  await eventually(() => closed, 10_000);
  clearInterval(answerAll);
  assert.equal(got.statuses, [...Array<number>(PIPELINE_DEPTH + 1).fill(200), 429]);
  assert.is(JSON.parse(got.bodies[PIPELINE_DEPTH + 1]!).error.code, 'too_many_pipelined');
  assert.is(e.received.length, PIPELINE_DEPTH + 1, 'nothing past the bound reached the engine');
  // A lower bound only: a slow machine makes the wait longer, never shorter.
  assert.ok(closedAt - sentAt >= OVERFLOW_HOLD_MS - 5, `the 429 and close waited the hold (${Math.round(closedAt - sentAt)} ms)`);
});

test(`at most ${MAX_OVERFLOWING} connections that overflowed are held open at once: one more is closed at once, unanswered`, async () => {
  const held: ServerResponse[] = [];
  const e = await engine('a', (_req, res) => held.push(res));
  const router = await startRouter();
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const flood = Array.from({ length: PIPELINE_DEPTH + 2 }, (_, i) => post('m', i)).join('');
  const open = (): { s: net.Socket; bytes: number; closed: boolean } => {
    const c = { s: net.connect(router.port, '127.0.0.1'), bytes: 0, closed: false };
    c.s.on('data', (b: Buffer) => (c.bytes += b.length));
    c.s.on('close', () => (c.closed = true));
    c.s.on('error', () => undefined);
    c.s.write(flood);
    return c;
  };
  const first = Array.from({ length: MAX_OVERFLOWING }, open);
  try {
    // Each one's first request waits at the engine; its 17th and 18th were parsed in the same read.
    await eventually(() => held.length === MAX_OVERFLOWING, 10_000);
    const last = open();
    await eventually(() => last.closed, 10_000);
    assert.is(last.bytes, 0, 'closed without an answer');
    assert.is(first.filter((c) => c.closed).length, 0, 'the ones held before it stay open');
  } finally {
    for (const c of first) c.s.destroy();
  }
});

test('a client that stops reading its stream is cut after --write-timeout and its in-flight count released', async () => {
  let engineGone = false;
  const e = await engine('a', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = `data: ${'x'.repeat(64 * 1024)}\n\n`;
    const pump = (): void => {
      while (res.write(chunk));
      res.once('drain', pump);
    };
    pump();
    req.socket.on('close', () => (engineGone = true));
  });
  const router = await startRouter({ writeTimeoutMs: 300 });
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const s = net.connect(router.port, '127.0.0.1');
  let closed = false;
  s.on('close', () => (closed = true));
  s.on('error', () => undefined);
  s.write(post('m', 1));
  s.pause(); // never read
  await eventuallyAsync(async () => (await router.usage()).inflight['m-0'] === 1);
  await eventually(() => engineGone, 10_000);
  await eventuallyAsync(async () => (await router.usage()).inflight['m-0'] === 0);
  // Reading again, the client finds its connection was closed under it.
  s.resume();
  await eventually(() => closed, 10_000);
  const served = (await router.usage()).served['m-0'];
  assert.equal(served, { requests: 1, errors: 0 }, 'the client stalling is not the replica failing');
  s.destroy();
});

test('engine slots: the total and the per-model bounds each refuse the next, and a slot given back is taken again', () => {
  const slots = new EngineSlots(3, 2);
  assert.ok(slots.take('a'));
  assert.ok(slots.take('a'));
  assert.not.ok(slots.take('a'), 'model a is at its bound');
  assert.ok(slots.take('b'));
  assert.not.ok(slots.take('c'), 'the total is reached');
  slots.give('a');
  assert.ok(slots.take('c'));
});

test('the default engine bound leaves room under the open-file limit: half of what a 64-descriptor reserve leaves, at most 10,000', () => {
  assert.is(defaultEngineConnections(null), 10_000);
  assert.is(defaultEngineConnections(1024), 480);
  assert.is(defaultEngineConnections(1_048_576), 10_000);
});

test('over --max-model-connections a request is refused with 503 at once, and the replica is not charged', async () => {
  const held: ServerResponse[] = [];
  const e = await engine('a', (_req, res) => held.push(res));
  const router = await startRouter({ maxModelConnections: 1 });
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const first = new Promise<number>((resolve) => {
    const s = net.connect(router.port, '127.0.0.1', () => s.write(post('m', 1)));
    const got = reader(s);
    const t = setInterval(() => {
      if (got.statuses.length === 0) return;
      clearInterval(t);
      s.destroy();
      resolve(got.statuses[0]!);
    }, 5);
  });
  await eventually(() => held.length === 1);
  const s2 = net.connect(router.port, '127.0.0.1', () => s2.write(post('m', 2)));
  const got2 = reader(s2);
  await eventually(() => got2.statuses.length === 1);
  assert.is(got2.statuses[0], 503);
  assert.is(JSON.parse(got2.bodies[0]!).error.code, 'overloaded');
  s2.destroy();
  held[0]!.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
  held[0]!.end('{}');
  assert.is(await first, 200);
  await eventuallyAsync(async () => (await router.usage()).served['m-0']?.requests === 1);
  assert.equal((await router.usage()).served['m-0'], { requests: 1, errors: 0 });
});

test.run();
