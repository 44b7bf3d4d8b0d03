// The router's log on stderr: plain lines for a person, or with --log-format json
// one JSON object a line ({"level","time","msg",…}) for a log shipper. The router
// logs what an operator acts on — start, stop, table swaps, replicas failing —
// and never a line per request (that is what the metrics are for).

export type LogFormat = 'text' | 'json';
export type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(format: LogFormat, write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  return {
    log(level, msg, fields = {}) {
      if (format === 'json') write(JSON.stringify({ level, time: now().toISOString(), msg, ...fields }) + '\n');
      else write(`llmgw router: ${level === 'info' ? '' : `${level}: `}${printable(msg)}\n`);
    },
  };
}

export const silentLogger: Logger = { log: () => undefined };

/** At most one line per key per `everyMs`: a replica that fails a thousand requests a second is one line, not a thousand. */
export function throttled(
  logger: Logger,
  everyMs: number,
  nowMs: () => number = Date.now,
): (key: string, level: LogLevel, msg: string, fields?: Record<string, unknown>) => void {
  const last = new Map<string, number>();
  return (key, level, msg, fields) => {
    const t = nowMs();
    const prev = last.get(key);
    if (prev !== undefined && t - prev < everyMs) return;
    if (last.size > 10_000) last.clear();
    last.set(key, t);
    logger.log(level, msg, fields);
  };
}

/** No control character (ESC, CR, …) from an error text reaches a terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
