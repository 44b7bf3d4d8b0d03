// `llmgw router serve` as an operator runs it: its own process, signals, its socket.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chat, clientAgent, eventually, startEngine, tempSocket, withRouter } from './helpers.js';
import { runRouterClient } from '../../src/router/client.js';
import { parseBytes, parseListen } from '../../src/cli/commands/router.js';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';
import { UsageError } from '../../src/errors.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('serve: listens where told, answers on its admin socket, and exits 0 on SIGTERM removing the socket', async () => {
  const tmp = tempSocket();
  const engine = await startEngine('e');
  const child = spawn(process.execPath, [MAIN, 'router', 'serve', '--listen', '127.0.0.1:0', '--admin', tmp.path], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    await eventually(() => /serving on http:\/\/127\.0\.0\.1:\d+/.test(err), 10_000);
    assert.match(err, new RegExp(`^llmgw router: serving on http://127\\.0\\.0\\.1:\\d+, admin socket ${tmp.path}\\n$`));
    const port = Number(/:(\d+),/.exec(err)![1]);
    assert.is(statSync(tmp.path).mode & 0o777, 0o600);
    const env = { LLMGW_ROUTER_SOCKET: tmp.path };
    const table = { version: 1, models: { m: [{ replica: 'm-0', url: engine.url }] } };
    assert.is((await runRouterClient('endpoints', JSON.stringify(table), env)).code, 0);
    assert.is((await chat(port, 'm')).json.engine, 'e');
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.is(await exited, 0);
    assert.not.ok(existsSync(tmp.path), 'the admin socket is gone');
  } finally {
    child.kill('SIGKILL');
    await engine.close();
    tmp.cleanup();
  }
});

test('close with a grace period lets a request in flight finish', async () => {
  const held: ServerResponse[] = [];
  const engine = await startEngine('slow', (_req, res) => held.push(res));
  const r = await withRouter();
  await r.setTable({ m: [{ replica: 'm-0', url: engine.url }] });
  const reply = chat(r.port, 'm');
  await eventually(() => held.length === 1);
  const closed = r.close(5_000);
  setTimeout(() => held[0]!.end('{"engine":"slow"}'), 50);
  assert.is((await reply).json.engine, 'slow');
  await closed;
  await engine.close();
  clientAgent.destroy();
});

async function runCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.out(), err: c.err() };
}

test('router serve --help, usage --help and endpoints --help print their usage and exit 0', async () => {
  const serve = await runCli(['router', 'serve', '--help']);
  assert.is(serve.code, 0);
  for (const flag of ['--listen', '--admin', '--max-body', '--max-buffered', '--max-connections', '--upstream-header-timeout', '--metrics', '--log-format']) {
    assert.ok(serve.out.includes(flag), `serve --help names ${flag}`);
  }
  assert.match(serve.out, /docs\//);
  assert.not.match(serve.out, /CONTRACT/);
  const usage = await runCli(['router', 'usage', '-h']);
  assert.equal([usage.code, usage.err], [0, '']);
  assert.match(usage.out, /^Usage: llmgw router usage/);
  const endpoints = await runCli(['router', 'endpoints', '--help']);
  assert.is(endpoints.code, 0);
  assert.match(endpoints.out, /"routing"/);
});

test('serve refuses bad limits as usage errors naming the flag', async () => {
  for (const [flag, value] of [
    ['--max-buffered', '12 apples'],
    ['--max-connections', '0'],
    ['--upstream-header-timeout', '10 minutes'],
    ['--log-format', 'xml'],
    ['--max-body', '-1'],
  ] as const) {
    const r = await runCli(['router', 'serve', flag, value]);
    assert.is(r.code, 1, `${flag} ${value} was refused`);
    assert.is(r.err.trimEnd().split('\n').length, 1, 'one line');
    assert.ok(r.err.includes(flag), r.err);
  }
  assert.equal(
    [parseBytes('256MiB'), parseBytes('512KiB'), parseBytes('1048576'), parseBytes('1GiB'), parseBytes('0'), parseBytes('1.5MiB')],
    [268435456, 524288, 1048576, 1073741824, null, null],
  );
});

test('serve --log-format json logs one JSON object a line with level, time and msg; --metrics serves /metrics', async () => {
  const tmp = tempSocket();
  const child = spawn(
    process.execPath,
    [MAIN, 'router', 'serve', '--listen', '127.0.0.1:0', '--admin', tmp.path, '--log-format', 'json', '--metrics', '127.0.0.1:0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    await eventually(() => err.includes('\n'), 10_000);
    const env = { LLMGW_ROUTER_SOCKET: tmp.path };
    assert.is((await runRouterClient('endpoints', JSON.stringify({ version: 1, models: { m: [] } }), env)).code, 0);
    await eventually(() => err.split('\n').filter(Boolean).length >= 2, 10_000);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.is(await exited, 0);
    const lines = err
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; time: string; msg: string; listen?: string });
    assert.equal(
      lines.map((l) => [l.level, typeof l.time, l.msg.split(':')[0]]),
      [
        ['info', 'string', 'serving on http'],
        ['info', 'string', 'table replaced'],
        ['info', 'string', 'stopped'],
      ],
    );
    assert.match(lines[0]!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(lines[0]!.msg, /metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
  } finally {
    child.kill('SIGKILL');
    tmp.cleanup();
  }
});

test('--listen takes HOST:PORT, [v6]:PORT or :PORT, and refuses anything else as a usage error', () => {
  assert.equal(parseListen('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
  assert.equal(parseListen('[::1]:9000'), { host: '::1', port: 9000 });
  assert.equal(parseListen(':80'), { host: '0.0.0.0', port: 80 });
  for (const bad of ['8080', 'host', 'h:99999', 'h:p'])
    assert.throws(
      () => parseListen(bad),
      (e: unknown) => e instanceof UsageError,
    );
});

test.run();
