// The router's own answers, in the OpenAI error shape clients already parse:
// {"error":{"message","type","param","code"}} (`param` names the offending
// request field, or is null, as OpenAI's own errors do).

import type { ServerResponse } from 'node:http';

export type ErrorCode =
  | 'model_not_found'
  | 'no_replica'
  | 'request_too_large'
  | 'invalid_json'
  | 'missing_model'
  | 'unknown_url'
  | 'method_not_allowed'
  | 'upstream_unavailable';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  502: 'server_error',
  503: 'server_error',
};

/** How long a client should wait before asking again for a model with no replica yet. */
export const RETRY_AFTER_SECONDS = 5;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
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
  sendJson(res, status, { error: { message, type: TYPE_BY_STATUS[status] ?? 'server_error', param, code } }, headers);
}
