// `llmgw router serve`: the proxy on a TCP address and the admin protocol on a
// Unix socket, sharing one routing table. Starts with an empty table: every
// model is unknown (404) until the reconciler sends `router endpoints`.

import http from 'node:http';
import { unlink } from 'node:fs/promises';
import { createAdminServer, listenAdmin } from './admin.js';
import { createProxy, DEFAULT_MAX_BODY_BYTES } from './proxy.js';
import { createRouterState } from './table.js';
import { RouterError } from './router-error.js';

export interface RouterOptions {
  listen: { host: string; port: number };
  adminSocket: string;
  maxBodyBytes?: number;
  /** The clock, for tests; read once per request that acquires a replica. */
  now?: () => Date;
}

export interface RunningRouter {
  /** The TCP port actually bound (useful with port 0). */
  port: number;
  /**
   * Stop accepting, let requests in flight finish for up to `graceMs` (default 0),
   * then cut what is left and remove the admin socket.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startRouter(opts: RouterOptions): Promise<RunningRouter> {
  const now = opts.now;
  const state = createRouterState(now ? () => now().getTime() : Date.now);
  const proxy = createProxy(state, opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const server = http.createServer({ noDelay: true }, proxy.handle);
  server.on('checkContinue', proxy.checkContinue);
  // Longer than common client pools keep idle connections, so the router is not the side that drops them mid-reuse.
  server.keepAliveTimeout = 65_000;
  const admin = createAdminServer(state);
  await listenAdmin(admin, opts.adminSocket);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.listen.port, opts.listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await closeServer(admin);
    await unlink(opts.adminSocket).catch(() => undefined);
    const where = `${opts.listen.host}:${opts.listen.port}`;
    throw new RouterError(`cannot listen on ${where}: ${(err as Error).message}`, { cause: err });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.listen.port;
  let closing: Promise<void> | null = null;
  return {
    port,
    close(graceMs = 0) {
      closing ??= (async () => {
        const closed = Promise.all([closeServer(server), closeServer(admin)]);
        admin.closeAllConnections();
        // A kept-alive connection turns idle when its last answer ends: close it then.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
        clearInterval(sweep);
        clearTimeout(timer);
        server.closeAllConnections();
        await closed;
        proxy.close();
      })();
      return closing;
    },
  };
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
