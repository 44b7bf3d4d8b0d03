// Running `llmgw status` in-process with captured streams.

import { run } from '../../src/cli/commands/status.js';
import { reportError } from '../../src/cli/report-error.js';
import { ROOT } from '../helpers/golden.js';
import { captureIo } from '../helpers/io.js';
import { NOW } from '../fixtures/now.js';

export { NOW, ROOT };

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export async function status(argv: string[], opts: { env?: NodeJS.ProcessEnv; tty?: boolean } = {}): Promise<Captured> {
  const { io, out, err } = captureIo({ cwd: ROOT, env: opts.env ?? {} });
  io.stdout.isTTY = opts.tty ?? false;
  let code: number;
  try {
    code = await run(argv, io);
  } catch (e) {
    code = reportError(e, io, 'status');
  }
  return { code, out: out(), err: err() };
}

/** status of an example, read from its committed snapshot at the fixed time. */
export function exampleStatus(example: string, ...more: string[]): Promise<Captured> {
  return status(['--repo', `examples/${example}`, '--observed', `examples/${example}/.llmgw/observed.json`, '--now', NOW, ...more]);
}
