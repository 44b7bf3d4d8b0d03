import { DataError } from '../errors.js';

/** Requests are small JSON documents; anything near this is a mistake or an attack. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** A whole stream as UTF-8 text (a command's stdin request), refusing more than maxBytes. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = MAX_REQUEST_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > maxBytes) throw new DataError(`the request on stdin is larger than ${maxBytes} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
