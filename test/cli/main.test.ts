import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';

function capture(): { io: Io; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write(c, _e, cb) { f(String(c)); cb(); } });
  const io: Io = {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
    debug: false,
  };
  return { io, out: () => out, err: () => err };
}

test('--version prints the package version and exits 0', async () => {
  const c = capture();
  const code = await main(['--version'], c.io);
  assert.is(code, 0);
  assert.match(c.out(), /^\d+\.\d+\.\d+\n$/);
});

test('--help lists every command of the contract', async () => {
  const c = capture();
  assert.is(await main(['--help'], c.io), 0);
  for (const cmd of ['validate', 'gather', 'plan', 'status', 'apply', 'reconcile', 'run', 'agent', 'router', 'demo']) {
    assert.match(c.out(), new RegExp(`^  ${cmd} `, 'm'));
  }
});

test('an unknown command is one line on stderr and exit 1', async () => {
  const c = capture();
  assert.is(await main(['frobnicate'], c.io), 1);
  assert.is(c.err(), "llmgw: unknown command 'frobnicate' (see llmgw --help)\n");
});

test.run();
