// What `llmgw run` and `llmgw reconcile` log, as text or as JSON lines
// (`--log-format json`, docs/operations.md): one object a line with `time`,
// `level`, `msg` and `tick`, the id every line of one tick shares, for a log
// pipeline (journald, Loki, Elasticsearch) that indexes fields rather than
// parses prose. The tick's code logs plain lines through `line`; it does not
// know the format or its tick id, which follows the tick across awaits
// (AsyncLocalStorage), so nothing has to thread it through the pipeline.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { escapeJsonText, escapeTerminal } from '../text/terminal-text.js';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'info' | 'warn' | 'error';

export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export function parseLogFormat(text: string | undefined): LogFormat {
  if (text === undefined) return 'text';
  if ((LOG_FORMATS as readonly string[]).includes(text)) return text as LogFormat;
  throw new UsageError(`--log-format ${text}: expected text or json`);
}

export interface LogLine {
  time: string;
  level: LogLevel;
  msg: string;
  /** The tick this line belongs to; null outside a tick (start-up, shutdown, the lease). */
  tick: string | null;
}

/**
 * The level a line carries. The text format marks warnings and errors with a
 * `warning: ` or `error: ` prefix (what `llmgw validate` prints too); JSON
 * moves that prefix into `level`, so both formats say the same.
 */
export function classify(line: string, fallback: LogLevel = 'info'): { level: LogLevel; msg: string } {
  if (line.startsWith('warning: ')) return { level: 'warn', msg: line.slice('warning: '.length) };
  if (line.startsWith('error: ')) return { level: 'error', msg: line.slice('error: '.length) };
  return { level: fallback, msg: line };
}

export interface Logger {
  readonly format: LogFormat;
  /** One line (no newline). */
  line: (text: string) => void;
  /** Runs `fn` as one tick: every line logged meanwhile, across awaits, carries a new tick id. */
  inTick<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Streams for code that prints (`printTickResult`): as JSON, each line written
   * is one object, stdout's at level info and stderr's at error; as text, the
   * streams themselves, so text output stays what it was.
   */
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface LoggerOptions {
  format: LogFormat;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Text lines start with the ISO time (`llmgw run`); a one-shot command's do not. */
  timestamps: boolean;
  now?: () => Date;
  newTickId?: () => string;
}

/** A fresh tick id: 8 hex digits, unique enough to group one tick's lines across a fleet's logs. */
export function randomTickId(): string {
  return randomBytes(4).toString('hex');
}

export function createLogger(opts: LoggerOptions): Logger {
  const now = opts.now ?? (() => new Date());
  const newTickId = opts.newTickId ?? randomTickId;
  const tick = new AsyncLocalStorage<string>();

  function write(out: NodeJS.WritableStream, text: string, fallback: LogLevel): void {
    if (opts.format === 'text') {
      // A line may quote a node, a reply or a file: one line, and no control character reaches the terminal (docs/security.md).
      out.write(`${opts.timestamps ? `${now().toISOString()} ` : ''}${escapeTerminal(text)}\n`);
      return;
    }
    const { level, msg } = classify(text, fallback);
    // JSON.stringify escapes C0 controls (a node's text cannot forge a line); escapeJsonText the C1 and bidi ones it leaves raw.
    const entry: LogLine = { time: now().toISOString(), level, msg, tick: tick.getStore() ?? null };
    out.write(escapeJsonText(JSON.stringify(entry)) + '\n');
  }

  /** A stream that logs each whole line written to it. */
  function lines(out: NodeJS.WritableStream, fallback: LogLevel): NodeJS.WritableStream {
    let pending = '';
    return new Writable({
      decodeStrings: false,
      write(chunk: Buffer | string, _enc, done) {
        pending += String(chunk);
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const p of parts) write(out, p, fallback);
        done();
      },
      final(done) {
        if (pending !== '') write(out, pending, fallback);
        pending = '';
        done();
      },
    });
  }

  return {
    format: opts.format,
    line: (text) => write(opts.stdout, text, 'info'),
    inTick: (fn) => tick.run(newTickId(), fn),
    stdout: opts.format === 'json' ? lines(opts.stdout, 'info') : opts.stdout,
    stderr: opts.format === 'json' ? lines(opts.stderr, 'error') : opts.stderr,
  };
}
