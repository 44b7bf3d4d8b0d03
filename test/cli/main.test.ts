import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';

const capture = () => captureIo();

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

test('an unknown option of any command is one usage line on stderr and exit 1, never an internal error', async () => {
  for (const [cmd, flag] of [['apply', '--bogus'], ['reconcile', '--force'], ['demo', '--bogus'], ['run', '--bogus'], ['plan', '--bogus']]) {
    const c = capture();
    assert.is(await main([cmd, flag], c.io), 1, cmd);
    assert.is(c.err(), `llmgw ${cmd}: Unknown option '${flag}'\n`, cmd);
  }
});

test('a flag value parseArgs finds ambiguous is still one stderr line', async () => {
  const c = capture();
  assert.is(await main(['plan', '--now', '-5'], c.io), 1);
  assert.is(c.err().split('\n').length, 2);
  assert.match(c.err(), /^llmgw plan: Option '--now' argument is ambiguous\. Did you forget/);
});

test('a --repo directory that does not exist is one usage line and exit 1 for every command that reads the config', async () => {
  for (const cmd of ['validate', 'gather', 'status', 'plan', 'apply']) {
    const c = capture();
    const args = [cmd, '--repo', 'no-such-dir-here', ...(cmd === 'apply' ? ['--yes'] : [])];
    assert.is(await main(args, c.io), 1, cmd);
    assert.is(c.err(), `llmgw ${cmd}: no-such-dir-here: no such directory\n`, cmd);
  }
});

test('every command takes --repo (docs/commands.md): agent, router and demo accept it and leave it unused', async () => {
  for (const argv of [['agent', '--repo', '.', '--help'], ['router', '--repo=.', '--help'], ['demo', '--repo', '.', '--help']]) {
    const c = capture();
    assert.is(await main(argv, c.io), 0, argv.join(' '));
    assert.match(c.out(), /^Usage:\s+llmgw /);
    assert.is(c.err(), '');
  }
});

test.run();
