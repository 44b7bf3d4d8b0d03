import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, DataError, GitError, LlmgwError, NotImplementedError, SshError, UsageError, WriteError } from '../../src/errors.js';
import { reportError } from '../../src/cli/report-error.js';
import type { Io } from '../../src/cli/io.js';

function quietIo(): Io & { err: string[] } {
  const err: string[] = [];
  return {
    err,
    stdout: { write: () => true },
    stderr: { write: (s: string) => err.push(s) > 0 },
    stdin: process.stdin,
    env: {},
    cwd: '/',
    debug: false,
  } as unknown as Io & { err: string[] };
}

test("the top-level catch returns the exit code the error's class carries, so no mapping elsewhere can drift from the classes", () => {
  class Exit7 extends LlmgwError {
    override readonly exitCode = 7;
  }
  assert.is(reportError(new Exit7('boom'), quietIo(), 'x'), 7);
});

test('every error llmgw throws exits 1 (docs/commands.md: 2 is only plan --detailed-exitcode), and so does an internal error', () => {
  const errors = [
    new UsageError('u'),
    new NotImplementedError('n'),
    new ConfigError('c'),
    new SshError('timeout', 'h', 's'),
    new GitError('g'),
    new WriteError('w'),
    new DataError('d'),
    new Error('internal'),
  ];
  assert.equal(
    errors.map((e) => reportError(e, quietIo(), 'x')),
    errors.map(() => 1),
  );
});

test.run();
