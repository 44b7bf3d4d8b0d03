// `llmgw console`'s HTTP side: read-only (GET and HEAD; anything else 405),
// loopback by default, and strict about what a browser may do with a page —
// no script or style but this origin's files, no framing, no referrer, no
// caching of a page that may be stale a second later. On loopback it answers
// only requests addressed to loopback (the Host header), so a web page that
// rebinds its DNS name to 127.0.0.1 cannot read the console.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from '../util/listen.js';
import { ASSETS } from './assets.js';
import { openHistory, type History } from './history.js';
import { openLedger, type ConsoleLedger } from './ledger.js';
import { esc } from './html.js';
import { route } from './routes.js';
import { createSource, type Source } from './source.js';

export interface Listen {
  host: string;
  port: number;
}

export interface ConsoleOptions {
  /** The checkout to read. */
  dir: string;
  /** How the directory is named in messages (as the user gave it). */
  displayDir: string;
  listen: Listen;
  /** How often a page asks whether the data changed (default 5 s). */
  refreshMs?: number;
  /** One line per request that failed inside the console. */
  log?: (line: string) => void;
  /** The clock the GPU-hours page counts the open day to (default: the system's). */
  now?: () => Date;
}

export interface ConsoleServer {
  /** e.g. http://127.0.0.1:8080, with the port actually bound. */
  url: string;
  close(): Promise<void>;
}

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SAFE_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host part of a Host header (`127.0.0.1:8080`, `[::1]:8080`, `localhost`). */
function hostOf(header: string | undefined): string {
  if (!header) return '';
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(header) ?? /^([^:]+)(?::\d+)?$/.exec(header);
  return (m?.[1] ?? '').toLowerCase();
}

/** `/nodes/gpu-a01` → ['nodes', 'gpu-a01']; null for a path that does not decode. */
function segments(url: string): string[] | null {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  try {
    return path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SAFE_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function versionOf(source: Source, history: History): Promise<string> {
  const [data, head] = await Promise.all([source.version(), history.head()]);
  return createHash('sha256')
    .update(`${data}\n${head ?? ''}`)
    .digest('hex')
    .slice(0, 16);
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: ConsoleOptions, source: Source, history: History, ledger: ConsoleLedger): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(req, res, 405, 'text/plain; charset=utf-8', 'The console is read-only: GET and HEAD only.\n', { allow: 'GET, HEAD' });
    return;
  }
  if (isLoopback(opts.listen.host) && !isLoopback(hostOf(req.headers.host))) {
    send(req, res, 421, 'text/plain; charset=utf-8', 'This console answers only requests addressed to loopback.\n');
    return;
  }
  const url = req.url ?? '/';
  const asset = ASSETS[url.split('?', 1)[0] ?? ''];
  if (asset) {
    if (req.headers['if-none-match'] === asset.etag) {
      send(req, res, 304, asset.type, '', { etag: asset.etag, 'cache-control': 'no-cache' });
      return;
    }
    send(req, res, 200, asset.type, asset.body, { etag: asset.etag, 'cache-control': 'no-cache' });
    return;
  }
  if (url === '/favicon.ico') {
    send(req, res, 204, 'text/plain; charset=utf-8', '');
    return;
  }
  if (url.split('?', 1)[0] === '/api/version') {
    const version = await versionOf(source, history);
    const etag = `"${version}"`;
    const headers = { etag, 'cache-control': 'no-cache' };
    if (req.headers['if-none-match'] === etag) {
      send(req, res, 304, 'application/json', '', headers);
      return;
    }
    send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify({ version }) + '\n', headers);
    return;
  }
  const parts = segments(url);
  if (parts === null) {
    send(req, res, 400, 'text/plain; charset=utf-8', 'A path that does not decode.\n');
    return;
  }
  const started = performance.now();
  const [loaded, version] = await Promise.all([source.current(), versionOf(source, history)]);
  const built = performance.now();
  const now = opts.now ?? (() => new Date());
  const reply = await route(parts, { loaded, version, history, ledger, now, refreshMs: opts.refreshMs ?? 5000, displayDir: opts.displayDir });
  const timing = `load;dur=${(built - started).toFixed(1)}, render;dur=${(performance.now() - built).toFixed(1)}`;
  const type = reply.type === 'html' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8';
  send(req, res, reply.status, type, reply.body, { 'cache-control': 'no-store', 'server-timing': timing });
}

export async function startConsole(opts: ConsoleOptions): Promise<ConsoleServer> {
  const source = createSource(opts.dir, opts.displayDir);
  // Built before the first request, not during it: a reader opening the page
  // right after start waits for a render, not for the config and snapshot.
  const [history, ledger] = await Promise.all([openHistory(opts.dir), openLedger(opts.dir), source.current().catch(() => undefined)]);
  const server = createServer((req, res) => {
    handle(req, res, opts, source, history, ledger).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      opts.log?.(`llmgw console: ${req.method ?? ''} ${req.url ?? ''}: ${message.split('\n')[0] ?? ''}`);
      if (res.headersSent) return void res.destroy();
      send(
        req,
        res,
        500,
        'text/html; charset=utf-8',
        `<!doctype html><title>Error</title><p>The console could not build this page: ${esc(message.split('\n', 1)[0] ?? '')}</p>`,
        { 'cache-control': 'no-store' },
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  const url = await listenOn(server, opts.listen);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
