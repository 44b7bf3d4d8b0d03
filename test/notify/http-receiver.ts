// A webhook receiver on 127.0.0.1 for the notify tests: records each request
// (method, path, headers, body, when it arrived) and answers as told.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() when the request had been read. */
  at: number;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  close: () => Promise<void>;
}

/** `answer` gets the response and the number of the request (1-based). */
export async function receiver(answer: (res: ServerResponse, n: number) => void = (res) => res.writeHead(200).end('ok')): Promise<Receiver> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: performance.now() });
      answer(res, hits.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Answers each request with the next status of the list, then 200. */
export function statuses(...codes: number[]): (res: ServerResponse, n: number) => void {
  return (res, n) => res.writeHead(codes[n - 1] ?? 200).end('ok');
}

/** A port on 127.0.0.1 that was just listened on and closed: nothing accepts there. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
