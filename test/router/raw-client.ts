// A raw-socket client for the router's tests: exactly the bytes a test writes,
// and the answer read back as it arrived (one response, or nothing but a close).

import net from 'node:net';

export interface RawAnswer {
  /** The status of the first response, or null when the router closed without a word. */
  status: number | null;
  head: string;
  body: string;
  /** The router closed the connection. */
  closed: boolean;
}

/**
 * Write `bytes` to the router; resolve with the first complete response (by its
 * Content-Length) or with what was read when the connection closed. Rejects
 * after `timeoutMs` with neither: that is a hang.
 */
export function rawExchange(port: number, bytes: string | Buffer | ((s: net.Socket) => void), timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let read = Buffer.alloc(0);
    let settled = false;
    const s = net.connect(port, '127.0.0.1', () => (typeof bytes === 'function' ? bytes(s) : s.write(bytes)));
    const finish = (closed: boolean): void => {
      if (settled) return;
      const text = read.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const body = end < 0 ? '' : read.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).toString('utf8');
      if (!closed && (end < 0 || !length || Buffer.byteLength(body) < Number(length[1]))) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ status: status ? Number(status[1]) : null, head, body: length ? body.slice(0, Number(length[1])) : body, closed });
    };
    s.on('data', (b: Buffer) => {
      read = Buffer.concat([read, b]);
      finish(false);
    });
    s.on('close', () => finish(true));
    s.on('error', () => undefined);
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      s.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms; read: ${JSON.stringify(read.toString('latin1').slice(0, 200))}`));
    }, timeoutMs);
  });
}

/** The OpenAI error object of an answer, or null when the body is not one. */
export function openAiError(body: string): { message: string; type: string; param: string | null; code: string } | null {
  try {
    const e = (JSON.parse(body) as { error?: unknown }).error as Record<string, unknown> | undefined;
    if (!e || typeof e.message !== 'string' || typeof e.type !== 'string' || typeof e.code !== 'string' || !('param' in e)) return null;
    return e as { message: string; type: string; param: string | null; code: string };
  } catch {
    return null;
  }
}
