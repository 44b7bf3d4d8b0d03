// `llmgw run`'s line on SIGTERM says what it waits for (docs/commands.md#llmgw-run):
// "finishing the tick in flight" only when one is (test/cli/stop-during-git.test.ts
// holds that case); between ticks, a plain exit line.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sandbox } from '../git/fixtures.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('llmgw run: SIGTERM between ticks says no tick is in flight, not that it finishes one, and exits 0', async () => {
  const sb = sandbox();
  try {
    const dir = sb.clone('work');
    const args = [MAIN, 'run', '--schedule', '0 0 1 1 *', '--poll', 'off', '--demand-poll', 'off', '--no-push', '--repo', dir];
    const child = spawn(process.execPath, args, { env: { ...sb.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // The start tick has ended (its summary or its failure is logged), and the daemon is up.
    const idle = new Promise<void>((resolve) => {
      const seen = (d: Buffer) => {
        out += String(d);
        if (/tick \(start\)/.test(out) && /running: schedule/.test(out)) resolve();
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
    });
    await Promise.race([idle, exited.then(() => assert.unreachable(`exited early: ${out}`))]);
    child.kill('SIGTERM');
    assert.is(await exited, 0, out);
    assert.match(out, /SIGTERM: no tick in flight, stopping/);
    assert.not.match(out, /finishing the tick in flight/);
    assert.match(out, /stopped$/m);
  } finally {
    sb.cleanup();
  }
});

test.run();
