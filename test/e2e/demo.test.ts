import { execFile, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canaryEnv, leaksIn, remoteLeaks } from '../helpers/leak-check.js';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('llmgw demo starts replicas at tick 1, sees them running at tick 2, and leaves only the repo behind', async () => {
  const started = Date.now();
  // Canary secrets in its environment (docs/security.md): none may reach its output or its repo.
  const { stdout, stderr } = await exec(process.execPath, [main, 'demo'], { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', ...canaryEnv() } });
  assert.equal(leaksIn(stdout + stderr, 'llmgw demo'), []);
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 30, `took ${seconds} s`);
  assert.match(stdout, /Plan: 7 to start, 0 to stop, 0 cannot be placed\./);
  assert.match(stdout, /started 7, stopped 0, waiting 0, failed 0; committed [0-9a-f]{12} and pushed/);
  assert.match(stdout, /7 of 7 new replicas answer their health check/);
  assert.match(stdout, /5 models, 7 replicas: 7 running, 0 starting, 0 failed\./);
  assert.match(stdout, /-> 200: Hello from the llmgw stub engine\./);
  assert.match(stdout, /llmgw: status: 7 running \(demo\)\s+\(llmgw\)\n[0-9a-f]+ llmgw: started 7 \(demo\)/);
  const dir = /the repo stays in (\S+) /.exec(stdout)?.[1];
  assert.ok(dir);
  assert.equal(await remoteLeaks(`${dir}/checkout`), []);
  const { stdout: log } = await exec('git', ['-C', `${dir}/checkout`, 'log', '--format=%s']);
  assert.is(log.split('\n')[0], 'llmgw: status: 7 running (demo)');
  const block = /loopback address \((127\.\d+)\./.exec(stdout)?.[1];
  assert.ok(block);
  const { stdout: ps } = await exec('ps', ['-eo', 'args']);
  assert.not.ok(ps.includes(`--host ${block}.`), 'a stub engine of the demo is still running');
  await rm(dir!, { recursive: true, force: true });
});

test('llmgw demo --keep stops cleanly and at once on Ctrl-C, even pressed twice: exit 0, no engine left running', async () => {
  const child = spawn(process.execPath, [main, 'demo', '--keep'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const end = Date.now() + 30_000;
  while (!out.includes('Ctrl-C stops') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const signalled = Date.now();
  child.kill('SIGINT');
  child.kill('SIGINT');
  assert.is(await exited, 0, out);
  const seconds = (Date.now() - signalled) / 1000;
  assert.ok(seconds < 5, `exited ${seconds} s after Ctrl-C: the wait between ticks was not cancelled`);
  assert.match(out, /Stopped every engine, SSH server and the router/);
  const block = /loopback address \((127\.\d+)\./.exec(out)?.[1];
  const { stdout: ps } = await exec('ps', ['-eo', 'args']);
  assert.not.ok(ps.includes(`--host ${block}.`), 'a stub engine of the demo is still running');
  const dir = /the repo stays in (\S+) /.exec(out)?.[1];
  await rm(dir!, { recursive: true, force: true });
});

test.run();
