// The engine side of the router (undici), against engines that write exact bytes:
// the framing cases where response smuggling lives.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import http from 'node:http';
import { chat, clientAgent, eventually, request, sleep, startEngine, withRouter, type TestRouter } from './helpers.js';
import { errnoCode } from '../../src/util/errno.js';

const test = suite('router upstream (undici)');

interface RawEngine {
  url: string;
  /** Requests as received (head and body), per connection in order. */
  requests: { conn: number; head: string; body: Buffer }[];
  close(): Promise<void>;
}

/** An engine that answers each request with `reply(socket, index, conn)`, writing whatever bytes it likes. */
async function rawEngine(reply: (socket: net.Socket, index: number, conn: number) => void | Promise<void>): Promise<RawEngine> {
  const requests: RawEngine['requests'] = [];
  const sockets = new Set<net.Socket>();
  let conns = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const conn = conns++;
    let pending = Buffer.alloc(0);
    socket.on('data', (b: Buffer) => {
      pending = Buffer.concat([pending, b]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.toString('latin1', 0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        requests.push({ conn, head, body: pending.subarray(end + 4, end + 4 + length) });
        pending = pending.subarray(end + 4 + length);
        void reply(socket, requests.length - 1, conn);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function writeSlowly(socket: net.Socket, text: string, piece: number): Promise<void> {
  for (let i = 0; i < text.length; i += piece) {
    socket.write(text.slice(i, i + piece), 'latin1');
    await sleep(1);
  }
}

let router: TestRouter;
const engines: RawEngine[] = [];
async function engine(reply: Parameters<typeof rawEngine>[0]): Promise<RawEngine> {
  const e = await rawEngine(reply);
  engines.push(e);
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  return e;
}

test.before(async () => {
  router = await withRouter();
});
test.after.each(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});
test.after(async () => {
  await router.close();
  clientAgent.destroy();
});

test('a chunked reply cut at every byte arrives whole, trailers and extensions skipped', async () => {
  await engine((s) =>
    writeSlowly(
      s,
      'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '7;ext=1\r\ndata: 1\r\n9\r\n\n\ndata: 2\r\n0\r\nX-Trailer: t\r\n\r\n',
      3,
    ),
  );
  const r = await chat(router.port, 'm');
  assert.is(r.status, 200);
  assert.is(r.text, 'data: 1\n\ndata: 2');
  assert.is(r.headers['content-type'], 'text/event-stream');
  assert.is(r.headers['x-trailer'], undefined);
});

test('a Content-Length reply whose head is split across packets passes byte for byte, and the connection is reused', async () => {
  const body = '{"text":"héllo ✓"}';
  const bytes = Buffer.from(body, 'utf8');
  const e = await engine((s) =>
    writeSlowly(s, `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n` + bytes.toString('latin1'), 5),
  );
  const first = await request(router.port, '/v1/chat/completions', { model: 'm', prompt: 'ünïcode ✓' });
  const second = await chat(router.port, 'm');
  assert.is(first.text, body);
  assert.is(first.headers['content-length'], String(bytes.length));
  assert.is(second.text, body);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 0],
    'both requests on one kept-alive connection',
  );
  assert.is(e.requests[0]!.body.toString('utf8'), JSON.stringify({ model: 'm', prompt: 'ünïcode ✓' }));
  assert.match(e.requests[0]!.head, /^POST \/v1\/chat\/completions HTTP\/1\.1\r\n/);
  assert.match(e.requests[0]!.head, /\r\nhost: 127\.0\.0\.1:\d+(\r\n|$)/i);
});

test('an interim 103 Early Hints is skipped; 204 has no body; a close-delimited body ends with the connection', async () => {
  await engine((s, i) => {
    if (i === 0) s.write('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    else if (i === 1) s.write('HTTP/1.1 204 No Content\r\n\r\n');
    else void s.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end');
  });
  const a = await chat(router.port, 'm');
  const b = await chat(router.port, 'm');
  const c = await chat(router.port, 'm');
  assert.equal([a.status, a.text], [200, 'ok']);
  assert.is(a.headers['link'], undefined, 'the hint head is not merged into the answer');
  assert.equal([b.status, b.text], [204, '']);
  assert.equal([c.status, c.text], [200, 'until the end']);
});

test('a 100 Continue the router never asked for (it sends no Expect) is a broken engine: 502, not passed on', async () => {
  await engine((s) => void s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  const r = await chat(router.port, 'm');
  assert.equal([r.status, r.json.error.code], [502, 'upstream_unavailable']);
});

test('a reply that is not HTTP is 502 in the OpenAI error shape', async () => {
  await engine((s) => void s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
  const r = await chat(router.port, 'm');
  assert.is(r.status, 502);
  assert.is(r.json.error.code, 'upstream_unavailable');
});

test('an engine that drops its kept-alive connection between requests costs no request', async () => {
  const e = await engine((s) => {
    s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    setTimeout(() => s.destroy(), 10);
  });
  const a = await chat(router.port, 'm');
  await sleep(50);
  const b = await chat(router.port, 'm');
  assert.equal([a.status, b.status], [200, 200]);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 1],
  );
});

test('a kept-alive socket closed as it is reused is retried on the same replica when it is the only one', async () => {
  const e = await engine((s, i) => {
    // The second request arrives on the kept connection: close it without a word, as a restarting engine would.
    if (i === 1) return void s.destroy();
    s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const a = await chat(router.port, 'm');
  const b = await chat(router.port, 'm');
  assert.equal([a.status, b.status, b.text], [200, 200, 'ok']);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 0, 1],
  );
});

test('a stream the engine breaks mid-body is cut short for the client, not completed', async () => {
  await engine((s) => {
    s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial');
    setTimeout(() => s.destroy(), 20);
  });
  const outcome = await chat(router.port, 'm').then(
    (r) => `complete ${r.text.length}`,
    (err: unknown) => `cut: ${errnoCode(err) ?? (err as Error).message}`,
  );
  assert.match(outcome, /^cut: /);
});

test('a large reply to a slow client is relayed whole under backpressure, and the connection then serves the next request', async () => {
  const big = Buffer.alloc(4 * 1024 * 1024, 'abcdefgh');
  const e = await engine((s, i) => {
    if (i === 0) s.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`), big]));
    else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const received = await new Promise<Buffer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: router.port, path: '/v1/completions', method: 'POST', agent: clientAgent }, (res) => {
      const parts: Buffer[] = [];
      res.pause();
      setTimeout(() => res.resume(), 200);
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve(Buffer.concat(parts)));
    });
    req.on('error', reject);
    req.end('{"model":"m"}');
  });
  assert.is(received.length, big.length);
  assert.ok(received.equals(big));
  const next = await chat(router.port, 'm');
  assert.equal([next.status, next.text], [200, 'ok']);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 0],
  );
});

test('the engine sees one request per client request even with a real Node engine in front of many', async () => {
  const real = await startEngine('real');
  await router.setTable({ m: [{ replica: 'm-0', url: real.url }] });
  const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(router.port, 'm', { seq: i })));
  assert.equal(
    replies.map((r) => r.json.seq),
    [...Array(50).keys()],
  );
  assert.is(real.received.length, 50);
  await real.close();
});

test('a 204 or 304 that announces chunked framing still ends at its head, and the connection serves the next request', async () => {
  const e = await engine((s, i) => {
    if (i === 0) s.write('HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n');
    else if (i === 1) s.write('HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n');
    else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const a = await chat(router.port, 'm');
  const b = await chat(router.port, 'm');
  const c = await chat(router.port, 'm');
  assert.equal([a.status, a.text, b.status, b.text, c.status, c.text], [204, '', 304, '', 200, 'ok']);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 0, 0],
  );
});

test('a reply with both Transfer-Encoding and Content-Length (a smuggling shape, RFC 9112 §6.3) is refused: 502, nothing of it passed on, the socket dropped', async () => {
  const e = await engine((s, i) => {
    if (i === 0) s.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
    else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const r = await chat(router.port, 'm');
  assert.equal([r.status, r.json.error.code], [502, 'upstream_unavailable']);
  assert.not.match(r.text, /hello/);
  const next = await chat(router.port, 'm');
  assert.equal([next.status, next.text], [200, 'ok']);
  assert.equal(
    e.requests.map((x) => x.conn),
    [0, 1],
    'the next request went on a fresh connection',
  );
});

test('a reply with two different Content-Lengths is refused: 502', async () => {
  await engine((s) => void s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello'));
  const r = await chat(router.port, 'm');
  assert.equal([r.status, r.json.error.code], [502, 'upstream_unavailable']);
});

test('bytes after a complete reply on a kept-alive connection (a smuggled second answer) never reach the next client', async () => {
  const e = await engine((s, i) => {
    if (i === 0) s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled');
    else s.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nclean');
  });
  const a = await chat(router.port, 'm');
  const b = await chat(router.port, 'm');
  assert.equal([a.status, a.text], [200, 'ok']);
  assert.equal([b.status, b.text], [200, 'clean']);
  assert.equal(e.requests.length, 2);
});

test('an engine that sent part of a head and then died is not retried on another replica: 502, one request', async () => {
  const half = await rawEngine((s) => {
    s.write('HTTP/1.1 200 OK\r\nContent-Ty');
    setTimeout(() => s.destroy(), 10);
  });
  const spare = await rawEngine((s) => void s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  engines.push(half, spare);
  await router.setTable(
    {
      m: [
        { replica: 'm-0', url: half.url },
        { replica: 'm-1', url: spare.url },
      ],
    },
    { m: 'least-inflight' },
  );
  // Round-robin would send the next request to either; the one that reaches `half` must not be repeated.
  const replies = [await chat(router.port, 'm'), await chat(router.port, 'm')];
  assert.equal(replies.map((r) => r.status).sort(), [200, 502]);
  assert.is(half.requests.length, 1);
  assert.is(spare.requests.length, 1);
  assert.is(replies.find((r) => r.status === 502)!.json.error.code, 'upstream_unavailable');
});

test('an engine header Node will not send (a space in its name) becomes a 502 in the OpenAI shape', async () => {
  await engine((s) => void s.write('HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 2\r\n\r\nok'));
  const r = await chat(router.port, 'm');
  assert.is(r.status, 502);
  assert.is(r.json.error.code, 'upstream_unavailable');
});

test('an engine that hangs after its head holds only its own request: the client leaving closes the upstream and frees the replica', async () => {
  let upstreamClosed = false;
  const e = await engine((s, i) => {
    if (i > 0) return void s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    s.on('close', () => (upstreamClosed = true));
    s.write('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
  });
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: router.port, path: '/v1/chat/completions', method: 'POST', agent: false }, (res) => {
      setTimeout(() => {
        req.destroy();
        resolve(res.statusCode!);
      }, 20);
    });
    req.on('error', () => undefined);
    req.end('{"model":"m","stream":true}');
    setTimeout(() => reject(new Error('no head')), 2000).unref();
  });
  assert.is(status, 200, 'the stream had started');
  await eventually(() => upstreamClosed);
  const after = await chat(router.port, 'm');
  assert.equal([after.status, after.text], [200, 'ok']);
  assert.ok(e.requests.length >= 2);
});

test('a reply head over 64 KiB is a 502, whether it arrives in one read or many', async () => {
  const huge = `HTTP/1.1 200 OK\r\nX-Big: ${'b'.repeat(70 * 1024)}\r\nContent-Length: 2\r\n\r\nok`;
  await engine((s, i) => (i === 0 ? void s.write(huge) : writeSlowly(s, huge, 16 * 1024)));
  const one = await chat(router.port, 'm');
  const many = await chat(router.port, 'm');
  assert.equal([one.status, one.json.error.code, many.status], [502, 'upstream_unavailable', 502]);
});

test.run();
