import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { captureIo } from '../helpers/io.js';
import type { ServerResponse } from 'node:http';
import { type Reply, chat, clientAgent, eventually, sleep, engineTracker, tempSocket, withRouter } from './helpers.js';
import { runRouterClient } from '../../src/router/client.js';
import { startRouter } from '../../src/router/server.js';
import { RouterError } from '../../src/router/router-error.js';
import { main } from '../../src/cli/main.js';
import { getValidator } from '../../src/util/schema.js';

const test = suite('router admin');

const { engine, closeAll: closeEngines } = engineTracker();
const cleanups: (() => void | Promise<void>)[] = [];

test.after.each(async () => {
  await closeEngines();
  for (const c of cleanups.splice(0).reverse()) await c();
});

test.after(() => clientAgent.destroy());

test('the admin socket is created with mode 0600 and a stale socket file is replaced', async () => {
  const tmp = tempSocket();
  // A router killed outright leaves its socket file behind, with nobody listening.
  const code = `require('net').createServer().listen(${JSON.stringify(tmp.path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', code]);
  assert.ok(lstatSync(tmp.path).isSocket(), 'a stale socket is there');
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  assert.is(statSync(tmp.path).mode & 0o777, 0o600);
  assert.equal(await r.usage().then((u) => u.version), 1);
});

test('an admin path that is a regular file is refused and the file is left alone', async () => {
  const tmp = tempSocket();
  cleanups.push(tmp.cleanup);
  writeFileSync(tmp.path, 'not a socket');
  try {
    await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: tmp.path });
    assert.unreachable('the router started on a regular file');
  } catch (err) {
    assert.instance(err, RouterError);
    assert.match((err as Error).message, /exists and is not a socket/);
  }
  assert.is(readFileSync(tmp.path, 'utf8'), 'not a socket');
});

test('a table upload cut off mid-body leaves the router up and its table unchanged', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const e = await engine('a');
  await r.setTable({ m: [{ replica: 'm-0', url: e.url }] });
  await new Promise<void>((resolve) => {
    const s = net.connect(tmp.path, () => {
      s.write('PUT /endpoints HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"version":1,');
      setTimeout(() => s.destroy(), 30);
    });
    s.on('close', () => resolve());
  });
  await sleep(30);
  assert.is((await chat(r.port, 'm')).json.engine, 'a');
  assert.is((await r.usage()).version, 1);
});

test('runRouterClient finds the socket only in the env it is given, never in process.env', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const saved = process.env['LLMGW_ROUTER_SOCKET'];
  process.env['LLMGW_ROUTER_SOCKET'] = tmp.path;
  try {
    const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: `${tmp.path}.elsewhere` });
    assert.is(out.code, 1);
    assert.ok(out.stderr.includes(`${tmp.path}.elsewhere`));
    assert.is((await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: tmp.path })).code, 0);
  } finally {
    if (saved === undefined) delete process.env['LLMGW_ROUTER_SOCKET'];
    else process.env['LLMGW_ROUTER_SOCKET'] = saved;
  }
});

test('a usage reply that is not a usage report is refused in one line, exit 1', async () => {
  const tmp = tempSocket();
  const fake = http.createServer((_req, res) => res.end('{"version":1,"lastUsed":{"x":"yesterday"}}'));
  await new Promise<void>((resolve) => fake.listen(tmp.path, resolve));
  cleanups.push(tmp.cleanup, () => new Promise<void>((resolve) => fake.close(() => resolve())));
  const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: tmp.path });
  assert.is(out.code, 1);
  assert.is(out.stdout, '');
  assert.is(out.stderr.trimEnd().split('\n').length, 1);
  assert.match(out.stderr, /^llmgw router usage: the reply on .* is not a usage report: /);
});

test('a second router does not steal the socket of a live one', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  try {
    await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: tmp.path });
    assert.unreachable('the second router started');
  } catch (err) {
    assert.instance(err, RouterError);
  }
  assert.equal((await r.usage()).lastUsed, {});
});

test('usage after traffic: newest use wins, replicas never served are absent, startedAt is the start', async () => {
  let clock = Date.parse('2026-11-29T08:00:00Z');
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path, now: () => new Date(clock) });
  cleanups.push(tmp.cleanup, () => r.close());
  const a = await engine('a');
  const b = await engine('b');
  await r.setTable({ m: [{ replica: 'm-0', url: a.url }], n: [{ replica: 'n-0', url: b.url }], idle: [{ replica: 'idle-0', url: b.url }] });
  clock = Date.parse('2026-11-29T08:01:00Z');
  await chat(r.port, 'm');
  clock = Date.parse('2026-11-29T08:02:00Z');
  await chat(r.port, 'n');
  clock = Date.parse('2026-11-29T08:03:00Z');
  await chat(r.port, 'm');
  assert.equal(await r.usage(), {
    version: 1,
    startedAt: '2026-11-29T08:00:00.000Z',
    lastUsed: { 'm-0': '2026-11-29T08:03:00.000Z', 'n-0': '2026-11-29T08:02:00.000Z' },
    inflight: { 'idle-0': 0, 'm-0': 0, 'n-0': 0 },
    served: { 'm-0': { requests: 2, errors: 0 }, 'n-0': { requests: 1, errors: 0 } },
    ejected: {},
    waiting: {},
    table: { m: [{ replica: 'm-0', url: a.url }], n: [{ replica: 'n-0', url: b.url }], idle: [{ replica: 'idle-0', url: b.url }] },
  });
  // A replica dropped from the table keeps its last use: it was used then, and that stays true.
  await r.setTable({ m: [], n: [{ replica: 'n-0', url: b.url }] });
  assert.equal(Object.keys((await r.usage()).lastUsed), ['m-0', 'n-0']);
});

test('a restarted router reports nothing as used and a fresh startedAt', async () => {
  let clock = Date.parse('2026-11-29T08:00:00Z');
  const tmp = tempSocket();
  cleanups.push(tmp.cleanup);
  const a = await engine('a');
  const first = await withRouter({ socket: tmp.path, now: () => new Date(clock) });
  await first.setTable({ m: [{ replica: 'm-0', url: a.url }] });
  clock += 60_000;
  await chat(first.port, 'm');
  assert.equal(Object.keys((await first.usage()).lastUsed), ['m-0']);
  await first.close();
  clock = Date.parse('2026-11-29T09:00:00Z');
  const second = await withRouter({ socket: tmp.path, now: () => new Date(clock) });
  cleanups.push(() => second.close());
  assert.equal(await second.usage(), {
    version: 1,
    startedAt: '2026-11-29T09:00:00.000Z',
    lastUsed: {},
    inflight: {},
    served: {},
    ejected: {},
    waiting: {},
    table: {},
  });
});

test('runRouterClient: endpoints then usage round trip; a bad table is refused with one line', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const env = { LLMGW_ROUTER_SOCKET: tmp.path };
  const a = await engine('a');
  // Wire format: unknown properties are allowed (a newer reconciler may send more).
  const table = { version: 1, models: { m: [{ replica: 'm-0', url: a.url, weight: 1 }] }, generation: 7 };
  assert.equal(getValidator('router-endpoints')(table), { ok: true });
  assert.equal(await runRouterClient('endpoints', JSON.stringify(table), env), { stdout: '{"version":1,"ok":true}\n', stderr: '', code: 0 });
  assert.is((await chat(r.port, 'm')).status, 200);
  const usage = await runRouterClient('usage', '{"version":1}', env);
  assert.is(usage.code, 0);
  assert.equal(getValidator('router-usage')(JSON.parse(usage.stdout)), { ok: true });
  assert.equal(Object.keys(JSON.parse(usage.stdout).lastUsed), ['m-0']);
  const bad = await runRouterClient('endpoints', '{"version":1,"models":{"m":[{"replica":"m-0","url":"ftp://x"}]}}', env);
  assert.is(bad.code, 1);
  assert.is(bad.stdout, '');
  assert.is(bad.stderr, "llmgw router endpoints: invalid table on stdin: /models/m/0/url: must be an http:// or https:// URL, got 'ftp://x'\n");
  const noVersion = await runRouterClient('endpoints', '{"models":{}}', env);
  assert.is(noVersion.code, 1);
  assert.match(noVersion.stderr, /^llmgw router endpoints: invalid table on stdin: \/: must have required property 'version'\n$/);
  assert.is((await chat(r.port, 'm')).status, 200, 'the table in service is unchanged');
});

test('a client with no router running says so in one line and exits 1', async () => {
  const tmp = tempSocket();
  cleanups.push(tmp.cleanup);
  const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: tmp.path });
  assert.equal(out, {
    stdout: '',
    stderr: `llmgw router usage: no router is listening on ${tmp.path} (is \`llmgw router serve\` running?)\n`,
    code: 1,
  });
});

test('the CLI finds the socket through --admin and reads the table from stdin', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const run = async (argv: string[], stdin: string) => {
    const c = captureIo({ env: { LLMGW_ROUTER_SOCKET: '/nonexistent/elsewhere.sock' }, stdin });
    const code = await main(argv, c.io);
    return { code, out: c.out(), err: c.err() };
  };
  const put = await run(['router', 'endpoints', '--admin', tmp.path], '{"version":1,"models":{"m":[]},"settings":{"m":{"waitTimeoutMs":50}}}');
  assert.equal(put, { code: 0, out: '{"version":1,"ok":true}\n', err: '' });
  const waited = await chat(r.port, 'm');
  assert.equal([waited.status, waited.json.error.code], [503, 'model_starting'], "the table's settings reached the router: the wait ended at its 50 ms");
  const usage = await run(['router', 'usage', '--admin', tmp.path], '');
  assert.is(usage.code, 0);
  assert.is(JSON.parse(usage.out).version, 1);
  const lost = await run(['router', 'usage'], '');
  assert.is(lost.code, 1);
  assert.match(lost.err, /^llmgw router usage: no router is listening on \/nonexistent\/elsewhere.sock/);
});

test('a swap lets requests in flight finish on their replica and sends new ones only to the new table', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const held: ServerResponse[] = [];
  const old = await engine('old', (_req, res) => held.push(res));
  const fresh = await engine('new');
  await r.setTable({ m: [{ replica: 'm-0', url: old.url }] });
  const inFlight = chat(r.port, 'm');
  await eventually(() => held.length === 1);
  await r.setTable({ m: [{ replica: 'm-1', url: fresh.url }] });
  const after = await Promise.all([1, 2, 3].map(() => chat(r.port, 'm')));
  assert.equal(
    after.map((x) => x.json.engine),
    ['new', 'new', 'new'],
  );
  held[0]!.writeHead(200, { 'content-type': 'application/json' });
  held[0]!.end('{"engine":"old"}');
  const finished = await inFlight;
  assert.equal([finished.status, finished.json.engine], [200, 'old']);
  assert.is(old.received.length, 1);
});

test('swapping tables under load loses no request and sends none to a removed replica', async () => {
  const tmp = tempSocket();
  const r = await withRouter({ socket: tmp.path });
  cleanups.push(tmp.cleanup, () => r.close());
  const slow = (name: string) =>
    engine(name, (_req, res, body) => {
      setTimeout(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ engine: name, seq: body['seq'] }));
        },
        5 + Math.floor(Math.random() * 40),
      );
    });
  const [a, b, c, d] = [await slow('a'), await slow('b'), await slow('c'), await slow('d')];
  const t1 = {
    m: [
      { replica: 'm-0', url: a.url },
      { replica: 'm-1', url: b.url },
    ],
  };
  const t2 = {
    m: [
      { replica: 'm-2', url: c.url },
      { replica: 'm-3', url: d.url },
    ],
  };
  await r.setTable(t1);
  const replies: Promise<Reply>[] = [];
  for (let seq = 0; seq < 250; seq++) replies.push(chat(r.port, 'm', { seq }));
  for (const t of [t2, t1, t2, t1]) {
    await sleep(5);
    await r.setTable(t);
  }
  await r.setTable(t2);
  for (let seq = 250; seq < 500; seq++) replies.push(chat(r.port, 'm', { seq }));
  const done = await Promise.all(replies);
  assert.is(done.filter((x) => x.status === 200).length, 500);
  assert.equal(
    done.map((x) => x.json.seq),
    [...Array(500).keys()],
  );
  const late = done.slice(250).map((x) => x.json.engine as string);
  assert.ok(
    late.every((e) => e === 'c' || e === 'd'),
    'after the last swap only c and d serve',
  );
  assert.ok(a.received.length + b.received.length > 0, 'the old table served some of the first wave');
});

test.run();
