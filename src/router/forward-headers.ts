// Which headers cross the router, each way. Headers that describe one hop's
// connection (RFC 9110 §7.6.1), not the message, stay on their hop; Host and
// Content-Length are the router's (undici's) to set for the engine.

const REQUEST_DROP = new Set([
  'te',
  'trailer',
  'upgrade',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'proxy-authorization',
  'host',
  'content-length',
  'expect',
]);
const REQUEST_DROP_LENGTHS = new Set([...REQUEST_DROP].map((h) => h.length));
const PLAIN_CONNECTION = new Set(['keep-alive', 'close']);

/** What the proxy needs from a request head, read in one pass over Node's raw header list (no headers object is built). */
export interface RequestHead {
  hasHost: boolean;
  /** Content-Length as sent (Node has already refused a malformed or repeated one). */
  contentLength: string | undefined;
  /** The first `x-session-id`, the routing key of `prefix` mode. */
  session: string | undefined;
  /** The client's headers for the engine, flat [name, value, …]. */
  forward: string[];
}

/** One pass over the raw headers: most names are told apart by their length alone, without lowercasing. */
export function readRequestHead(raw: string[]): RequestHead {
  const forward: string[] = [];
  let named: Set<string> | null = null;
  let hasHost = false;
  let contentLength: string | undefined;
  let session: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    // Node's raw list is always name, value pairs: `i + 1` is in range.
    const value = raw[i + 1] ?? '';
    const n = name.length;
    if (REQUEST_DROP_LENGTHS.has(n)) {
      const lower = name.toLowerCase();
      if (REQUEST_DROP.has(lower)) {
        if (n === 4) hasHost = true;
        else if (n === 14 && lower === 'content-length') contentLength ??= value;
        // Nearly every client sends just `keep-alive` (or `close`): no need to split those.
        else if (n === 10 && lower === 'connection' && !PLAIN_CONNECTION.has(value.toLowerCase())) named = connectionNamed(value, named);
        continue;
      }
    }
    if (n === 12 && session === undefined && name.toLowerCase() === 'x-session-id') session = value;
    forward.push(name, value);
  }
  return { hasHost, contentLength, session, forward: named ? withoutNamed(forward, named) : forward };
}

const RESPONSE_DROP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
const RESPONSE_DROP_LENGTHS = new Set([...RESPONSE_DROP].map((h) => h.length));

export interface ResponseHead {
  /** Flat [name, value, …] for res.writeHead. */
  headers: string[];
  /** The head says where the body ends (Content-Length), so the reply is not a stream. */
  hasLength: boolean;
  /** Content-Type text/event-stream: a stream the router may end with an error event (exchange.ts). */
  eventStream: boolean;
}

/** The engine's headers (undici's raw Buffers) for the client, hop-by-hop ones dropped. */
export function responseHeaders(raw: Buffer[]): ResponseHead {
  const headers: string[] = [];
  let hasLength = false;
  let eventStream = false;
  let named: Set<string> | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    // undici's raw list is always name, value pairs: both indexes are in range.
    const name = raw[i]?.toString('latin1') ?? '';
    const value = raw[i + 1]?.toString('latin1') ?? '';
    if (RESPONSE_DROP_LENGTHS.has(name.length)) {
      const lower = name.toLowerCase();
      if (RESPONSE_DROP.has(lower)) {
        if (lower === 'connection' && !PLAIN_CONNECTION.has(value.toLowerCase())) named = connectionNamed(value, named);
        continue;
      }
    }
    if (name.length === 14 && name.toLowerCase() === 'content-length') hasLength = true;
    else if (name.length === 12 && name.toLowerCase() === 'content-type') eventStream = value.toLowerCase().startsWith('text/event-stream');
    headers.push(name, value);
  }
  return { headers: named ? withoutNamed(headers, named) : headers, hasLength, eventStream };
}

/** Headers a `Connection:` names are for this hop only. */
function connectionNamed(value: string, named: Set<string> | null): Set<string> | null {
  for (const token of value.split(',')) {
    const t = token.trim().toLowerCase();
    if (t !== '' && t !== 'close' && t !== 'keep-alive') (named ??= new Set()).add(t);
  }
  return named;
}

function withoutNamed(flat: string[], named: Set<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i] ?? '';
    if (!named.has(name.toLowerCase())) out.push(name, flat[i + 1] ?? '');
  }
  return out;
}
