// Hostile webhook receivers (docs/security.md): seeded variants of what a
// receiver answers — any status, redirects to elsewhere, lying or broken
// framing, garbage that is not HTTP, bodies huge, endless or trickling,
// answers that never come, connections reset — against the public delivery
// API. Each delivery ends within its timeouts (never a hang), never throws,
// logs at most one line per failed delivery with no control character, and
// neither the hook's URL (it holds a token) nor its secret shows in a log
// line; a redirect is never followed. Behaviour only: how delivery is built
// inside is not looked at.

import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliverOutbox, enqueue } from '../../src/notify/outbox.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import type { WebhookConfig } from '../../src/types/config.js';
import { emptyState } from '../../src/types/state.js';
import { CANARY, leaksIn } from '../helpers/leak-check.js';
import { COUNT, SEED, hash, rng, rssGrowthMiB, type Rng } from './generate.js';
import { at } from '../fixtures/now.js';

const TIMEOUT_MS = 250;
/** RSS the whole run may add, in MiB. A receiver streaming without end must not be buffered past this. */
const MEMORY_BOUND_MIB = 256;

type Answer =
  | { kind: 'http'; status: number; headers: string[]; body: string /* 'endless' and 'trickle' name a streamed body */; delayMs: number }
  | { kind: 'garbage'; bytes: Buffer }
  | { kind: 'silent' }
  | { kind: 'reset' }
  | { kind: 'headers-only'; status: number };

const STATUSES = [200, 201, 202, 204, 299, 300, 301, 302, 303, 307, 308, 400, 401, 403, 404, 408, 410, 413, 418, 429, 500, 502, 503, 504, 599];

function answer(r: Rng, stolenUrl: string): Answer {
  switch (r.int(12)) {
    case 0:
      return { kind: 'garbage', bytes: Buffer.from(Array.from({ length: 1 + r.int(2000) }, () => r.int(256))) };
    case 1:
      return { kind: 'silent' };
    case 2:
      return { kind: 'reset' };
    case 3:
      return { kind: 'headers-only', status: r.pick(STATUSES) };
    default: {
      const status = r.chance(0.8) ? r.pick(STATUSES) : 200 + r.int(400);
      const headers: string[] = [];
      if (status >= 300 && status < 400) headers.push(`Location: ${r.pick([stolenUrl, `${stolenUrl}?t=${CANARY}`, '/elsewhere', 'javascript:alert(1)', ''])}`);
      if (r.chance(0.2))
        headers.push(
          r.pick([
            'Content-Length: 999999',
            'Content-Length: -1',
            'Transfer-Encoding: chunked',
            'Content-Type: text/html',
            'Connection: keep-alive',
            `X-Evil: \x1b]0;pwned\x07`,
            'Content-Encoding: gzip',
          ]),
        );
      const body = r.pick<string>(['', 'ok', '{"ok":true}', `\x1b[2J${CANARY}`, 'x'.repeat(1 + r.int(1_000_000)), 'endless', 'trickle']);
      return { kind: 'http', status, headers, body, delayMs: r.pick([0, 0, 0, 50, TIMEOUT_MS * 2]) };
    }
  }
}

/** A raw TCP receiver: the variant is named by the request path (`/v/<i>/…`), and answered byte by byte as it says. */
function receiver(answers: Answer[]): Server {
  const chunk = Buffer.alloc(64 * 1024, 120);
  return createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    let head = '';
    let done = false;
    socket.on('data', (d) => {
      if (done) return;
      head += d.toString('latin1');
      const m = /^POST \/v\/(\d+)\//.exec(head);
      if (!m || !head.includes('\r\n\r\n')) return;
      done = true;
      respond(socket, answers[Number(m[1])]!, chunk);
    });
  });
}

function respond(socket: Socket, a: Answer, chunk: Buffer): void {
  if (a.kind === 'silent') return;
  if (a.kind === 'reset') return void socket.resetAndDestroy();
  if (a.kind === 'garbage') return void socket.end(a.bytes);
  if (a.kind === 'headers-only') return void socket.write(`HTTP/1.1 ${a.status} X\r\nContent-Length: 10\r\n\r\n`);
  const send = () => {
    if (socket.destroyed) return;
    const framed = a.body === 'endless' || a.body === 'trickle';
    const head = [
      `HTTP/1.1 ${a.status} Whatever`,
      ...a.headers,
      ...(framed || a.headers.some((h) => /^Content-Length|^Transfer/i.test(h)) ? [] : [`Content-Length: ${Buffer.byteLength(a.body)}`]),
      'Connection: close',
      '',
      '',
    ].join('\r\n');
    socket.write(head);
    if (a.body === 'endless') {
      // As fast as the client takes it, until it goes away.
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    } else if (a.body === 'trickle') {
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('x')), 20);
      socket.on('close', () => clearInterval(timer));
    } else socket.end(a.body);
  };
  if (a.delayMs > 0) setTimeout(send, a.delayMs).unref();
  else send();
}

/** Seconds after the event: it is owed, not stale. */
/** Five seconds into the kit's NOW: deliveries stamped then. */
const NOW = new Date(at(5));
const event: NotifyEvent = {
  event: 'node.lost',
  cluster: 'demo',
  time: '2026-11-29T08:00:00Z',
  subject: 'gpu-a01',
  text: '[demo] Node gpu-a01 is lost',
  details: { node: 'gpu-a01' },
};

test(`${COUNT} hostile webhook receivers: every delivery ends within its timeouts, never throws, logs one clean line per failure, never the URL or secret, never follows a redirect`, async () => {
  let stolen = 0;
  const elsewhere = createHttpServer((_req, res) => {
    stolen++;
    res.end();
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  const stolenUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/stolen`;
  const r = rng(SEED ^ hash('webhook answer'));
  const answers = Array.from({ length: COUNT }, () => answer(r, stolenUrl));
  const server = receiver(answers);
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  const rss = process.memoryUsage().rss;
  const outcomes = new Map<string, number>();
  // A runaway buffer takes gigabytes in a second: stop the run at 1 GiB over the bound, naming the variants in flight, before it takes the machine.
  const inflight = new Set<number>();
  const guard = setInterval(() => {
    if (rssGrowthMiB(rss) > MEMORY_BOUND_MIB + 1024) {
      console.error(
        `RSS grew ${rssGrowthMiB(rss).toFixed(0)} MiB (seed ${SEED}), variants in flight:`,
        [...inflight].map((i) => `${i} ${JSON.stringify(answers[i]).slice(0, 150)}`),
      );
      process.exit(3);
    }
  }, 10);
  try {
    let next = 0;
    const worker = async () => {
      while (next < COUNT) {
        const i = next++;
        inflight.add(i);
        const hook: WebhookConfig = { url: `http://127.0.0.1:${port}/v/${i}/${CANARY}-token`, secret: `${CANARY}-secret` };
        const lines: string[] = [];
        const where = `webhook variant ${i} of seed ${SEED} (LLMGW_HOSTILE_SEED=${SEED} reproduces it; answer ${JSON.stringify(answers[i]).slice(0, 200)})`;
        // Liveness, not speed: far beyond a tick's two attempts (one retry at most) plus backoff.
        const deadline = 2 * (TIMEOUT_MS + 50) + 10_000;
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<'hung'>((res) => (timer = setTimeout(() => res('hung'), deadline)));
        const queued = enqueue(emptyState(), [event], [hook]);
        const delivery = deliverOutbox(queued, [hook], { timeoutMs: TIMEOUT_MS, backoffMs: 1, now: () => NOW, log: (l) => lines.push(l) });
        const result = await Promise.race([delivery, hung]).finally(() => clearTimeout(timer));
        if (result === 'hung') {
          assert.unreachable(`${where}: still running after ${deadline} ms`);
          return;
        }
        // Taken: no line, nothing owed. Refused for good: one line, nothing owed. Else: one line, still owed.
        const owed = result.outbox.length;
        assert.ok(lines.length <= 1, `${where}: at most one line per delivery: ${JSON.stringify(lines)}`);
        if (lines.length === 0) assert.is(owed, 0, `${where}: a delivery with no line was taken`);
        else assert.is(owed, / refused: /.test(lines[0]!) ? 0 : 1, `${where}: a refusal is final, any other failure stays owed: ${lines[0]}`);
        for (const l of lines) {
          assert.not.ok(l.includes('\n'), `${where}: one line`);
          const leaks = leaksIn(l, 'log line');
          assert.equal(leaks, [], `${where}: ${leaks.join('; ')}`);
          assert.not.ok(l.includes('/v/'), `${where}: the hook's URL path is not logged: ${l}`);
        }
        const key = lines.length === 0 ? 'taken' : (lines[0]!.match(/(?:not delivered|refused): (.*?);/)?.[1] ?? lines[0]!).replace(/\d+ ms/, 'N ms');
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        inflight.delete(i);
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
  } finally {
    server.close();
    elsewhere.close();
    clearInterval(guard);
  }
  assert.is(stolen, 0, 'no redirect was followed');
  assert.ok(outcomes.size >= 4, `a spread of outcomes: ${JSON.stringify([...outcomes])}`);
  assert.ok(rssGrowthMiB(rss) < MEMORY_BOUND_MIB, `RSS grew ${rssGrowthMiB(rss).toFixed(0)} MiB`);
});

test.run();
