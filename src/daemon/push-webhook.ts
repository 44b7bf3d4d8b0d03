// `llmgw run --listen HOST:PORT`: the receiver of the forge's push webhook
// (docs/operations.md#push-webhook). A POST whose signature verifies for
// $LLMGW_PUSH_SECRET asks for a tick at once (coalesced like any trigger) and
// gets 202; anything unsigned or wrongly signed gets 401 and starts nothing. The
// body is read up to a bound (413 past it): it is only hashed, never parsed,
// since the tick reads the branch itself. The secret is never logged.

import { createServer, type IncomingMessage } from 'node:http';
import { listenOn } from '../util/listen.js';
import { UsageError } from '../errors.js';
import { verifyPush } from './push-signature.js';

/** GitHub caps a payload at 25 MB; a push of a config repo is a few kB. */
export const MAX_PUSH_BODY = 1024 * 1024;

export interface PushListen {
  host: string;
  port: number;
}

/** `HOST:PORT` or `[v6]:PORT`; the host is required (say 0.0.0.0 to mean every interface). */
export function parsePushListen(text: string): PushListen {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--listen must be HOST:PORT (e.g. 127.0.0.1:9465), got '${text}'`);
  return { host: m[1] ?? m[2] ?? '', port };
}

/** The secret --listen needs, or the startup error that says where it goes. */
export function pushSecret(env: Record<string, string | undefined>): string {
  const secret = env.LLMGW_PUSH_SECRET;
  if (secret === undefined || secret === '') {
    throw new UsageError("--listen needs the webhook secret in $LLMGW_PUSH_SECRET (the one set on the forge's push webhook)");
  }
  return secret;
}

export interface PushReceiver {
  /** e.g. http://127.0.0.1:9465/, with the port actually bound. */
  url: string;
  close(): Promise<void>;
}

export interface PushReceiverOptions {
  listen: PushListen;
  secret: string;
  /** Asked for a tick: a signed push arrived. */
  onPush: (provider: string) => void;
  log: (line: string) => void;
  maxBody?: number;
}

type Read = { ok: true; body: Buffer } | { ok: false };

function readBody(req: IncomingMessage, max: number): Promise<Read> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? { ok: false } : { ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => resolve({ ok: false }));
  });
}

export async function startPushReceiver(opts: PushReceiverOptions): Promise<PushReceiver> {
  const max = opts.maxBody ?? MAX_PUSH_BODY;
  const server = createServer((req, res) => {
    const reply = (code: number, text: string) =>
      res.writeHead(code, { 'content-type': 'application/json', connection: 'close' }).end(`${JSON.stringify({ ok: code < 300, message: text })}\n`);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      reply(405, 'push webhooks are POSTed');
      req.resume();
      return;
    }
    if (Number(req.headers['content-length'] ?? 0) > max) {
      reply(413, `body over ${max} bytes`);
      req.destroy();
      return;
    }
    void readBody(req, max).then((read) => {
      if (!read.ok) {
        reply(413, `body over ${max} bytes`);
        return;
      }
      const verdict = verifyPush(req.headers, read.body, opts.secret);
      if (!verdict.ok) {
        opts.log(`push webhook from ${req.socket.remoteAddress ?? '?'} refused: ${verdict.reason}`);
        reply(401, 'signature missing or wrong');
        return;
      }
      opts.onPush(verdict.provider);
      reply(202, 'tick requested');
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const url = await listenOn(server, opts.listen);
  return {
    url: `${url}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
