// Running `llmgw status` in-process with captured streams.

import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/commands/status.js';
import type { Io } from '../../src/cli/io.js';
import { reportError } from '../../src/cli/report-error.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const NOW = '2026-11-29T08:00:00Z';

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export async function status(argv: string[], opts: { env?: NodeJS.ProcessEnv; tty?: boolean } = {}): Promise<Captured> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write(c, _e, cb) { f(String(c)); cb(); } });
  const stdout = Object.assign(sink((s) => (out += s)), { isTTY: opts.tty ?? false });
  const io: Io = { stdout, stderr: sink((s) => (err += s)), stdin: Readable.from([]), env: opts.env ?? {}, cwd: ROOT, debug: false };
  let code: number;
  try {
    code = await run(argv, io);
  } catch (e) {
    code = reportError(e, io, 'status');
  }
  return { code, out, err };
}

/** status of an example, read from its committed snapshot at the fixed time. */
export function exampleStatus(example: string, ...more: string[]): Promise<Captured> {
  return status(['--repo', `examples/${example}`, '--observed', `examples/${example}/.llmgw/observed.json`, '--now', NOW, ...more]);
}
