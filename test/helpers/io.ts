// An in-process Io for running CLI commands in tests, capturing what they print.

import { Readable, Writable } from 'node:stream';
import type { Io } from '../../src/cli/io.js';

export interface CapturedIo {
  io: Io;
  out: () => string;
  err: () => string;
}

export function captureIo(opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): CapturedIo {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        f(String(chunk));
        cb();
      },
    });
  const io: Io = {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    debug: false,
  };
  return { io, out: () => out, err: () => err };
}
