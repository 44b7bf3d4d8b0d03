// The admin side of the router: a tiny HTTP protocol on a Unix socket (mode 0600,
// so only the router's own user can read usage or repoint traffic).
//   GET /usage      -> 200 {"version":1,"startedAt":…,"lastUsed":{…},"inflight":{…},"served":{…},"table":{…}}
//   PUT /endpoints  -> 200 {"version":1,"ok":true}, 400 {"version":1,"ok":false,"errors":[…]},
//                      or 409 {"version":1,"ok":false,"error":"fenced: epoch N < M"} (fence.ts)

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseEndpoints } from './endpoints.js';
import { fence } from './fence.js';
import { swapTable, tableOf, usageOf, type RouterState } from './table.js';
import { sendJson } from './reply.js';
import { RouterError } from './router-error.js';
import type { Logger } from './log.js';
import { errnoCode } from '../util/errno.js';

/** A table larger than this is a mistake, not a fleet. */
const MAX_TABLE_BYTES = 64 * 1024 * 1024;

export function createAdminServer(state: RouterState, log: Logger): http.Server {
  return http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/usage') return sendJson(res, 200, { ...usageOf(state), table: tableOf(state) });
    // A client that leaves mid-table rejects the body's iterator: that ends its
    // request, never the router (an unhandled rejection would stop the process).
    if (req.method === 'PUT' && req.url === '/endpoints') return void putEndpoints(state, req, res, log).catch(() => res.destroy());
    sendJson(res, 404, { version: 1, ok: false, errors: [`unknown admin request ${req.method ?? ''} ${req.url ?? ''}`] });
  });
}

async function putEndpoints(state: RouterState, req: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_TABLE_BYTES) {
      sendJson(res, 413, { version: 1, ok: false, errors: ['table too large'] }, { connection: 'close' });
      return;
    }
    chunks.push(chunk);
  }
  const parsed = parseEndpoints(Buffer.concat(chunks).toString('utf8'));
  if (!parsed.ok) {
    sendJson(res, 400, { version: 1, ok: false, errors: parsed.errors });
    return;
  }
  const fenced = fence(state.highestEpoch, parsed.value);
  if (!fenced.ok) {
    log.log('warn', `table refused: ${fenced.error} (holder ${JSON.stringify(parsed.value.lease?.holder ?? null)})`);
    sendJson(res, 409, { version: 1, ok: false, error: fenced.error });
    return;
  }
  state.highestEpoch = fenced.highest;
  swapTable(state, parsed.value);
  const replicas = Object.values(parsed.value.models).reduce((n, list) => n + list.length, 0);
  log.log('info', `table replaced: ${Object.keys(parsed.value.models).length} models, ${replicas} replicas`);
  sendJson(res, 200, { version: 1, ok: true });
}

/**
 * Listen on `path` with mode 0600. A socket file left by a router that died is
 * replaced; one a live router still answers on is not stolen.
 */
export async function listenAdmin(server: http.Server, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  if (await answers(path)) throw new RouterError(`another router is already listening on the admin socket ${path}`);
  // Only a socket is ours to replace: a mistyped --admin must not delete a file.
  const existing = await lstat(path).catch(() => null);
  if (existing && !existing.isSocket()) throw new RouterError(`the admin socket path ${path} exists and is not a socket`);
  await unlink(path).catch((err: unknown) => {
    if (errnoCode(err) !== 'ENOENT') throw new RouterError(`cannot replace the stale admin socket ${path}: ${(err as Error).message}`);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The umask closes the window between bind and chmod in which others could
      // connect; bind happens inside listen(), synchronously, so it is restored at once.
      const previous = setUmask(0o177);
      try {
        server.listen(path, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        if (previous !== null) setUmask(previous);
      }
    });
  } catch (err) {
    throw new RouterError(`cannot listen on the admin socket ${path}: ${(err as Error).message}`, { cause: err });
  }
  await chmod(path, 0o600);
}

/** process.umask(mask), or null where it cannot be set (a worker thread): the chmod below still applies. */
function setUmask(mask: number): number | null {
  try {
    return process.umask(mask);
  } catch {
    return null;
  }
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
