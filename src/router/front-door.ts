// The corners of the front door that Node's HTTP server would otherwise answer
// with a bare status line (or a silent close): requests it cannot parse, an
// Expect it does not know, CONNECT, and connections over --max-connections. Each
// gets OpenAI's error JSON and the connection closes: after a parse error the
// byte stream is out of step and nothing else on it can be trusted.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hangUpIfBody, rawErrorResponse, sendError, type ErrorCode } from './reply.js';

/** llhttp's codes (and Node's own) -> what the client is told. */
function classify(code: string | undefined): { status: number; code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'The request head is too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'request_too_large', message: 'The chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      return { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1' };
  }
}

/** How long a refused connection may linger half-closed before it is cut. */
const LINGER_MS = 2_000;

/** Answer on a raw socket and close it, reading (and dropping) what the client still sends so it sees the answer, not a reset. */
function refuse(socket: Socket | Duplex, response: string): void {
  if (!socket.writable) return void socket.destroy();
  socket.end(response);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

export interface FrontDoorLimits {
  maxConnections: number;
}

export interface FrontDoor {
  /** Client connections open now. */
  readonly connections: () => number;
}

/** Connections answered 503 over the cap: the HTTP server still parses them, the proxy must not serve them. */
const refused = new WeakSet();

/** For the request handler: a request on a connection refused over the cap is never served. */
export function isRefusedSocket(socket: object): boolean {
  return refused.has(socket);
}

export function guardFrontDoor(server: Server, limits: FrontDoorLimits): FrontDoor {
  let open = 0;

  // Prepended, so it runs before the HTTP server takes the socket: a connection
  // over the cap is answered 503 and closed, and the server never parses it.
  server.prependListener('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      refused.add(socket);
      socket.on('error', () => undefined);
      return refuse(socket, rawErrorResponse(503, 'too_many_connections', 'The router has too many open connections; try again shortly', 'retry-after: 1\r\n'));
    }
    open++;
    socket.once('close', () => open--);
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (refused.has(socket) || err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    // A response already under way on this connection cannot be followed by another.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (inFlight?.headersSent) return void socket.destroy();
    const c = classify(err.code);
    refuse(socket, rawErrorResponse(c.status, c.code, c.message));
  });

  server.on('checkExpectation', (req, res) => {
    sendError(res, 417, 'expectation_failed', 'Only Expect: 100-continue is supported', { connection: 'close', ...hangUpIfBody(req) });
  });

  server.on('connect', (_req, socket: Duplex) => {
    socket.on('error', () => undefined);
    refuse(socket, rawErrorResponse(405, 'method_not_allowed', 'CONNECT is not supported', 'allow: GET, HEAD, POST\r\n'));
  });

  return { connections: () => open };
}
