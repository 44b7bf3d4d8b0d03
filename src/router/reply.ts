// The router's own answers, in the OpenAI error shape clients already parse:
// {"error":{"message","type","param","code"}} (`param` names the offending
// request field, or is null, as OpenAI's own errors do). Every error the router
// sends has this shape, malformed requests included (client-errors.ts).

import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';

export type ErrorCode =
  | 'model_not_found'
  | 'model_starting'
  | 'too_many_pipelined'
  | 'request_too_large'
  | 'invalid_json'
  | 'missing_model'
  | 'unknown_url'
  | 'method_not_allowed'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'overloaded'
  | 'too_many_connections'
  | 'bad_request'
  | 'missing_host'
  | 'request_timeout'
  | 'headers_too_large'
  | 'expectation_failed';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  413: 'invalid_request_error',
  417: 'invalid_request_error',
  429: 'rate_limit_error',
  431: 'invalid_request_error',
  502: 'server_error',
  503: 'server_error',
  504: 'server_error',
};

/** How long a client should wait before asking again for a model with no replica ready (it waited its waitTimeout, or the router holds too many waiting). */
export const RETRY_AFTER_SECONDS = 5;

export function errorJson(status: number, code: ErrorCode, message: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type: TYPE_BY_STATUS[status] ?? 'server_error', param, code } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendText(res, status, JSON.stringify(body), headers);
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
  param: string | null = null,
): void {
  if (res.headersSent) {
    // Too late for a status: cutting the stream is the only honest signal left.
    res.destroy();
    return;
  }
  sendText(res, status, errorJson(status, code, message, param), headers);
}

/**
 * A whole error response as bytes, for a socket the HTTP server cannot answer
 * through a ServerResponse (a request it could not parse, a connection over the
 * cap). It always closes the connection: after a parse error the stream is out of step.
 */
export function rawErrorResponse(status: number, code: ErrorCode, message: string, extra = ''): string {
  const body = errorJson(status, code, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`
  );
}

/**
 * A refused request's body would otherwise be read to its end to keep the
 * connection (Node does so), with no size limit: closing instead spares that.
 */
export function hangUpIfBody(req: IncomingMessage): Record<string, string> {
  const length = req.headers['content-length'];
  const body = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return body ? { connection: 'close' } : {};
}
