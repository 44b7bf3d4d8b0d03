import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';
import { sandbox } from '../git/fixtures.js';

test('run without --schedule is a usage error on one line', async () => {
  const c = captureIo();
  assert.is(await main(['run'], c.io), 1);
  assert.is(c.err(), "llmgw run: --schedule CRON is required, e.g. --schedule '*/5 * * * *'\n");
});

test('a schedule that is not cron is refused before touching any repo', async () => {
  const c = captureIo({ cwd: '/nonexistent' });
  assert.is(await main(['run', '--schedule', 'hourly'], c.io), 1);
  assert.is(c.err(), "llmgw run: --schedule 'hourly' is not a cron expression (e.g. '*/5 * * * *': every five minutes)\n");
});

test('a lease TTL that is not a duration is a usage error', async () => {
  const c = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--lease-ttl', 'ten'], c.io), 1);
  assert.is(c.err(), "llmgw run: --lease-ttl 'ten' is not a duration (e.g. 90s, 10m, 1h30m)\n");
});

test('--poll and --demand-poll take a duration or off; anything else is a usage error naming the flag', async () => {
  const c = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--poll', 'often'], c.io), 1);
  assert.is(c.err(), "llmgw run: --poll 'often' is not a duration or off (e.g. 15s, 2s, off)\n");
  const d = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--demand-poll', 'soon'], d.io), 1);
  assert.is(d.err(), "llmgw run: --demand-poll 'soon' is not a duration or off (e.g. 15s, 2s, off)\n");
});

test('--listen without $LLMGW_PUSH_SECRET is a startup error that says where the secret goes, before any repo is touched', async () => {
  const c = captureIo({ cwd: '/nonexistent' });
  assert.is(await main(['run', '--schedule', '* * * * *', '--listen', '127.0.0.1:9465'], c.io), 1);
  assert.is(c.err(), "llmgw run: --listen needs the webhook secret in $LLMGW_PUSH_SECRET (the one set on the forge's push webhook)\n");
  const d = captureIo({ env: { LLMGW_PUSH_SECRET: 's' } });
  assert.is(await main(['run', '--schedule', '* * * * *', '--listen', '9465'], d.io), 1);
  assert.is(d.err(), "llmgw run: --listen must be HOST:PORT (e.g. 127.0.0.1:9465), got '9465'\n");
});

test('--remote without --workdir is a usage error', async () => {
  const c = captureIo();
  assert.is(await main(['run', '--schedule', '* * * * *', '--remote', 'https://example.invalid/r.git'], c.io), 1);
  assert.is(c.err(), 'llmgw run: --remote needs --workdir DIR\n');
});

test('SIGTERM between ticks: a plain exit line (no tick in flight to finish), and exit 0', async () => {
  const sb = sandbox();
  try {
    const c = captureIo({ env: sb.env, cwd: sb.root });
    const done = main(['run', '--schedule', '0 0 1 1 *', '--repo', join(sb.root, 'seed'), '--no-push'], c.io);
    const end = Date.now() + 10_000;
    while (!/tick \(start\)/.test(c.out()) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    process.kill(process.pid, 'SIGTERM');
    assert.is(await done, 0);
    const lines = c
      .out()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\S+ /, ''));
    assert.match(lines[0]!, /^running: schedule '0 0 1 1 \*' in /);
    assert.ok(lines.includes('SIGTERM: no tick in flight, stopping'), lines.join('\n'));
    assert.not.ok(lines.includes('SIGTERM: finishing the tick in flight'));
    assert.is(lines.at(-1), 'stopped');
    assert.is(process.listenerCount('SIGTERM'), 0, 'the handler is removed');
  } finally {
    sb.cleanup();
  }
});

test.run();
