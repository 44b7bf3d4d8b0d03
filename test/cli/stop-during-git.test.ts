// A SIGTERM to `llmgw run` or `llmgw reconcile` while a git call waits on a
// remote that never answers ends that call: the daemon stops (exit 0) instead
// of waiting out git.timeout (default 60s) behind it.
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gitRunsIn } from '../../src/git/repair.js';
import { sandbox } from '../git/fixtures.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

async function stopDuringGit(args: string[]): Promise<{ code: number | null; out: string }> {
  const sockets = new Set<Socket>();
  const silent = createServer((s) => void sockets.add(s.on('error', () => undefined)));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const sb = sandbox();
  try {
    const dir = sb.clone('work');
    sb.git(dir, 'remote', 'set-url', 'origin', `git://127.0.0.1:${(silent.address() as AddressInfo).port}/config.git`);
    const child = spawn(process.execPath, [MAIN, ...args, '--repo', dir], { env: { ...sb.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Wait until its git call hangs on the silent remote.
    for (let i = 0; !gitRunsIn(dir, join(dir, '.git')); i++) {
      if (i > 3000) throw new Error(`no git call started: ${out}`);
      await sleep(10);
    }
    child.kill('SIGTERM');
    const code = await exited;
    assert.is(gitRunsIn(dir, join(dir, '.git')), false, 'its git call went with it');
    return { code, out };
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
    sb.cleanup();
  }
}

test('llmgw run: SIGTERM during a git call to a silent remote cuts the call, and the daemon stops with exit 0', async () => {
  const { code, out } = await stopDuringGit(['run', '--schedule', '0 0 1 1 *']);
  assert.is(code, 0, out);
  assert.match(out, /SIGTERM: finishing the tick in flight/);
  assert.match(out, /tick \(start\) failed: reading the lease from origin failed: cut short: llmgw is stopping/);
  assert.match(out, /stopped$/m);
});

test('llmgw reconcile: SIGTERM during a git call to a silent remote ends it with one line, not a hang', async () => {
  const { code, out } = await stopDuringGit(['reconcile']);
  assert.is(code, 1, out);
  assert.match(out, /^llmgw reconcile: reading the lease from origin failed: cut short: llmgw is stopping$/m);
  assert.not.match(out, /internal error|\n\s+at /);
});

test.run();
