import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandFailedError, connectError, lastLine } from '../../src/gather/ssh-errors.js';

const target = { name: 'gpu-a01', host: '10.0.0.1', port: 22 };

test('a failed command says its exit code and the last line of stderr, in one line', () => {
  const err = commandFailedError(target, 'llmgw agent report', 3, undefined, 'starting\nllmgw: no such file\n\n');
  assert.is(err.kind, 'command-failed');
  assert.is(err.host, 'gpu-a01');
  assert.is(err.remoteExitCode, 3);
  assert.is(err.message, 'gpu-a01 (10.0.0.1:22): `llmgw agent report` exited with code 3: llmgw: no such file');
});

test("a host's escape sequences and carriage returns never reach a terminal through its error line", () => {
  assert.is(lastLine('ok\r\n\u001b[2J\u001b[31mred\u0007\r\n'), '\ufffd[2J\ufffd[31mred\ufffd');
  assert.is(lastLine('spinner\rdone'), 'spinner\ufffddone');
});

test('any SshError message is one printable line, whatever text of the host it carries', () => {
  const err = connectError(Object.assign(new Error('Bad identification start: \u001b]0;pwned\u0007\nSSH-2.0'), { level: 'protocol' }), target, true, 1000);
  assert.is(err.kind, 'unreachable');
  assert.is(err.message, 'gpu-a01 (10.0.0.1:22): SSH handshake failed (Bad identification start: \ufffd]0;pwned\ufffd)');
});

test('a very long stderr line is cut at 300 characters', () => {
  assert.is(lastLine('x'.repeat(500)), 'x'.repeat(300) + '…');
});

test.run();
