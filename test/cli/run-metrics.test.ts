// `llmgw run --metrics HOST:PORT --log-format json` and `llmgw reconcile
// --log-format json` as the CLI wires them, on a checkout of a real repo.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';
import { parseExposition, scrape, valueOf } from '../helpers/prometheus.js';
import { sandbox } from '../git/fixtures.js';
import { errnoCode } from '../../src/util/errno.js';

interface Line {
  time: string;
  level: string;
  msg: string;
  tick: string | null;
}

const lines = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

test('--metrics that is not HOST:PORT and --log-format that is not text or json are one usage line each', async () => {
  const a = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--metrics', '9464'], a.io), 1);
  assert.is(a.err(), "llmgw run: --metrics must be HOST:PORT (e.g. 127.0.0.1:9464), got '9464'\n");
  const b = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--log-format', 'xml'], b.io), 1);
  assert.is(b.err(), 'llmgw run: --log-format xml: expected text or json\n');
  const c = captureIo();
  assert.is(await main(['reconcile', '--log-format', 'yaml'], c.io), 1);
  assert.is(c.err(), 'llmgw reconcile: --log-format yaml: expected text or json\n');
});

test('run serves the metrics of its ticks, logs JSON lines, and closes the server on SIGTERM', async () => {
  const sb = sandbox();
  try {
    const c = captureIo({ env: sb.env, cwd: sb.root });
    const done = main(
      ['run', '--schedule', '0 0 1 1 *', '--repo', join(sb.root, 'seed'), '--no-push', '--metrics', '127.0.0.1:0', '--log-format', 'json'],
      c.io,
    );
    const deadline = Date.now() + 20_000;
    while (!/"msg":"tick \(start\): /.test(c.out())) {
      if (Date.now() > deadline) throw new Error(`no tick within 20 s:\n${c.out()}\n${c.err()}`);
      await sleep(20);
    }
    const log = lines(c.out());
    const url = /serving Prometheus metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)$/.exec(log.find((l) => l.msg.startsWith('metrics: '))!.msg)![1]!;
    // The tick is recorded right after its summary line.
    let s = parseExposition((await scrape(url)).text);
    while (valueOf(s, 'llmgw_tick_duration_seconds_count') !== 1 && Date.now() < deadline) {
      await sleep(20);
      s = parseExposition((await scrape(url)).text);
    }
    assert.is(valueOf(s, 'llmgw_tick_duration_seconds_count'), 1);
    // A checkout without a remote shares the fleet with nobody: its lease is its own.
    assert.is(valueOf(s, 'llmgw_lease_held'), 1);
    const tickLine = log.find((l) => l.msg.startsWith('tick (start): '))!;
    assert.is(valueOf(s, 'llmgw_config_valid'), tickLine.msg.includes('config invalid') ? 0 : 1);

    process.kill(process.pid, 'SIGTERM');
    assert.is(await done, 0);
    const all = lines(c.out());
    for (const l of all) assert.equal(Object.keys(l).sort(), ['level', 'msg', 'tick', 'time']);
    assert.is(all.find((l) => l.msg.startsWith('running: schedule'))!.tick, null);
    assert.is(all.at(-1)!.msg, 'stopped');
    assert.match(tickLine.tick ?? '', /^[0-9a-f]{8}$/);
    assert.is(c.err(), '');
    await scrape(url).then(
      () => assert.unreachable('the metrics server is closed after the run'),
      (err: unknown) => assert.is(errnoCode(err), 'ECONNREFUSED'),
    );
  } finally {
    sb.cleanup();
  }
});

test('reconcile --log-format json: every line one object, all of them carrying the one tick id', async () => {
  const sb = sandbox();
  try {
    const c = captureIo({ env: sb.env, cwd: sb.root });
    await main(['reconcile', '--remote', sb.remote, '--workdir', join(sb.root, 'work'), '--no-push', '--log-format', 'json'], c.io);
    const all = [...lines(c.out()), ...lines(c.err())];
    assert.ok(all.length >= 2, c.out());
    const ids = new Set(all.map((l) => l.tick));
    assert.is(ids.size, 1);
    assert.match([...ids][0] ?? '', /^[0-9a-f]{8}$/);
    assert.ok(
      all.some((l) => /action\(s\) planned|config invalid/.test(l.msg)),
      'the tick summary is a line too',
    );
  } finally {
    sb.cleanup();
  }
});

test.run();
