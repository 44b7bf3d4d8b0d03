// What a hostile client can make the router hold (docs/operations.md#limits):
// the bounds behind bench:router's abuse phase, asserted as byte and request
// counts rather than timings.
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { eventually, routerSuite } from './helpers.js';
import { BodyBuffer, pushCounted } from '../../src/router/body-buffer.js';
import { BodyBudget, type BodyHolder } from '../../src/router/budget.js';
import { Lane, PIPELINE_DEPTH, type LaneSocket, type LaneUser } from '../../src/router/lane.js';

const { test, engine, router: startRouter } = routerSuite('router bounds under abuse');

function post(model: string, seq: number, path = '/v1/chat/completions'): string {
  const body = JSON.stringify({ model, seq, messages: [{ role: 'user', content: 'hi' }] });
  return `POST ${path} HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A hostile uploader's body in the budget, kept as exchange.ts keeps it (pushCounted). */
class Upload implements BodyHolder {
  held = 0;
  evicted = false;
  body = new BodyBuffer();
  constructor(private readonly budget: BodyBudget) {}
  push(piece: Buffer): void {
    if (!this.evicted) pushCounted(this.budget, this, this.body, piece);
  }
  evict(): void {
    this.evicted = true;
    this.body = new BodyBuffer();
  }
}

test('--max-buffered bounds what bodies pin, slab room included: 1,000 uploaders in 16 KiB pieces never hold more than the cap', () => {
  const max = 4 * 1024 * 1024;
  const budget = new BodyBudget(max);
  const uploads = Array.from({ length: 1000 }, () => new Upload(budget));
  const piece = Buffer.alloc(16 * 1024, 'x');
  let most = 0;
  for (let round = 0; round < 20; round++) {
    for (const u of uploads) {
      u.push(round === 0 ? piece.subarray(0, 300) : piece);
      const pinned = uploads.reduce((n, x) => n + (x.evicted ? 0 : x.body.held), 0);
      most = Math.max(most, pinned);
      assert.is(budget.used, pinned, 'the budget counts exactly what the live bodies pin');
    }
  }
  assert.ok(most <= max, `pinned at most ${most} bytes, cap ${max}`);
  assert.ok(
    uploads.some((u) => u.evicted),
    'the flood was over the cap, so some uploads were refused',
  );
  for (const u of uploads.filter((x) => !x.evicted)) {
    // A slab is an eighth of the body so far, at least 4 KiB: the room beyond what was received stays under that.
    assert.ok(u.body.held - u.body.size <= Math.max(4096, u.body.size / 8), `${u.body.held} held for ${u.body.size} received`);
  }
});

/** A socket double that records the lane's pauses. */
function fakeSocket(): LaneSocket & { pauses: number; resumes: number; _paused: boolean } {
  const s = {
    pauses: 0,
    resumes: 0,
    _paused: false,
    destroyed: false,
    pause: () => s.pauses++,
    resume: () => s.resumes++,
  };
  return s;
}

test(`a pipelining connection holds at most 1 + ${PIPELINE_DEPTH} requests: counted on arrival, the socket not read while full, the next one refused`, () => {
  const socket = fakeSocket();
  const lane = new Lane(socket);
  const started: number[] = [];
  const users: LaneUser[] = Array.from({ length: PIPELINE_DEPTH + 1 }, (_, i) => ({ startTurn: () => started.push(i), leftLane: false }));
  for (let i = 0; i < PIPELINE_DEPTH + 1; i++) assert.ok(lane.arrive(), `request ${i} arrives`);
  assert.is(socket.pauses, 1, 'full: reading stops');
  for (const u of users) lane.enter(u);
  assert.equal(started, [0], 'one at a time upstream');
  assert.is(lane.queued, PIPELINE_DEPTH);
  lane.depart(true);
  assert.equal(started, [0, 1]);
  assert.is(socket.resumes, 1, 'room again: reading resumes');
  // Node's server paused the socket itself (its answers back up): the lane leaves that pause alone.
  assert.ok(lane.arrive());
  assert.is(socket.pauses, 2);
  socket._paused = true;
  lane.depart(true);
  assert.is(socket.resumes, 1);
  socket._paused = false;
  assert.ok(lane.arrive());
  assert.not.ok(lane.arrive(), 'one more than the bound: refused');
  assert.ok(lane.closing);
  assert.not.ok(lane.arrive(), 'and everything after it');
  lane.depart(true);
  assert.is(socket.resumes, 1, 'a closing connection is never read again');
});

test('a connection closed for overflowing its lane: the aborts Node makes on its close carry no stack, and the limit is back right after', () => {
  const socket = Object.assign(new EventEmitter(), { pause: () => undefined, resume: () => undefined });
  // Node's server adds its close listener (which aborts the unanswered requests) when the connection arrives.
  const stacks: string[] = [];
  socket.on('close', () => stacks.push(new Error('aborted').stack ?? ''));
  const before = Error.stackTraceLimit;
  const lane = new Lane(socket);
  for (let i = 0; i <= PIPELINE_DEPTH; i++) lane.arrive();
  assert.not.ok(lane.arrive(), 'overflowed');
  lane.arrive();
  socket.emit('close');
  assert.is(stacks.length, 1);
  assert.is(stacks[0], 'Error: aborted', 'no frames captured for the aborts');
  assert.is(Error.stackTraceLimit, before, 'restored as soon as the close is handled');
  assert.match(new Error('later').stack ?? '', /\n\s+at /, 'errors after it have their stacks');
  // A connection that never overflowed: its close is left alone.
  const calm = Object.assign(new EventEmitter(), { pause: () => undefined, resume: () => undefined });
  calm.on('close', () => stacks.push(new Error('aborted').stack ?? ''));
  new Lane(calm).arrive();
  calm.emit('close');
  assert.match(stacks[1] ?? '', /\n\s+at /);
});

test('400 requests pipelined in one write: one 429 for the whole connection, not one answer made per flooded request', async () => {
  const e = await engine('a');
  const router = await startRouter({ metrics: { host: '127.0.0.1', port: 0 } });
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const s = net.connect(router.port, '127.0.0.1');
  let seen = '';
  let closed = false;
  s.on('data', (b: Buffer) => (seen += b.toString('latin1')));
  s.on('close', () => (closed = true));
  s.write(Array.from({ length: 400 }, (_, i) => post('m', i)).join(''));
  await eventually(() => closed, 10_000);
  const statuses = [...seen.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
  assert.equal(statuses, [...Array<number>(PIPELINE_DEPTH + 1).fill(200), 429]);
  assert.is(e.received.length, PIPELINE_DEPTH + 1);
  const text = await (await fetch(`http://127.0.0.1:${router.metricsPort}/metrics`)).text();
  const counted = text
    .split('\n')
    .filter((l) => l.startsWith('llmgw_router_requests_total{'))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  assert.is(counted, PIPELINE_DEPTH + 2, 'the 17 served and the one 429: the rest of the flood made no request of its own');
});

test('a client that never reads a large answer: the router holds at most 256 KiB of it, the engine is paused instead', async () => {
  let sent = 0;
  let blocked = false;
  const e = await engine('a', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024 * 1024) });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = (): void => {
      blocked = false;
      while (sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          blocked = true;
          return void res.once('drain', pump);
        }
      }
      res.end();
    };
    pump();
  });
  const router = await startRouter();
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  const s = net.connect(router.port, '127.0.0.1');
  s.on('error', () => undefined);
  s.write(post('m', 1, '/v1/completions'));
  s.pause(); // never reads
  await eventually(() => router.heldAnswerBytes() > 0 && blocked, 10_000);
  // Give every buffer on the way the chance to fill: the engine stays blocked, what the router holds stays bounded.
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
  assert.ok(blocked, 'the engine is held back by backpressure');
  assert.ok(sent < 64 * 1024 * 1024, 'the engine could not send its whole answer');
  const held = router.heldAnswerBytes();
  assert.ok(held > 0 && held <= 256 * 1024, `router holds ${held} bytes for the client`);
  s.destroy();
});

test.run();
