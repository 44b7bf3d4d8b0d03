import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandList, main } from '../../src/cli/main.js';
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
  for (const [cmd, flag] of [
    ['apply', '--bogus'],
    ['reconcile', '--force'],
    ['demo', '--bogus'],
    ['run', '--bogus'],
    ['plan', '--bogus'],
  ] as [string, string][]) {
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

test('--help and -h work on every command and every subcommand: usage on stdout, nothing on stderr, exit 0', async () => {
  const walked: string[] = [];
  for (const { name, subcommands } of commandList()) {
    for (const argv of [[name], ...subcommands.map((s) => [name, s])]) {
      for (const flag of ['--help', '-h']) {
        const c = capture();
        const args = [...argv, flag];
        assert.is(await main(args, c.io), 0, args.join(' '));
        assert.match(c.out(), /^Usage:?\s+llmgw /, args.join(' '));
        if (argv.length === 2) assert.ok(c.out().includes(`llmgw ${argv[0]} ${argv[1]}`), `${args.join(' ')} names its subcommand`);
        assert.is(c.err(), '', args.join(' '));
      }
      walked.push(argv.join(' '));
    }
  }
  for (const cmd of ['agent report', 'agent apply', 'router serve', 'router usage', 'router endpoints', 'console', 'demo', 'gather'])
    assert.ok(walked.includes(cmd), cmd);
});

test('every command takes --repo (docs/commands.md): agent and router accept it and leave it unused, demo and console read it', async () => {
  for (const argv of [
    ['agent', '--repo', '.', '--help'],
    ['router', '--repo=.', '--help'],
    ['demo', '--repo', '.', '--help'],
  ]) {
    const c = capture();
    assert.is(await main(argv, c.io), 0, argv.join(' '));
    assert.match(c.out(), /^Usage:\s+llmgw /);
    assert.is(c.err(), '');
  }
});

test.run();
