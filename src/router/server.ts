// `llmgw router serve`: the proxy on a TCP address and the admin protocol on a
// Unix socket, sharing one routing table (and, with --metrics, a /metrics
// listener). Starts with an empty table: every model is unknown (404) until the
// reconciler sends `router endpoints`.

import http from 'node:http';
import { unlink } from 'node:fs/promises';
import { createAdminServer, listenAdmin } from './admin.js';
import { BodyBudget } from './budget.js';
import { guardFrontDoor } from './front-door.js';
import { silentLogger, throttled, type Logger } from './log.js';
import { createRouterMetrics, serveMetrics } from './metrics.js';
import { createProxy, DEFAULT_MAX_BODY_BYTES } from './proxy.js';
import { RouterStats } from './stats.js';
import { createRouterState } from './table.js';
import { createUpstreams } from './upstream.js';
import { RouterError } from './router-error.js';
import { Ejector } from './ejector.js';
import { defaultEngineConnections, EngineSlots } from './engine-slots.js';
import { DEFAULT_LIVENESS, type LivenessSettings } from './liveness.js';
import { openFileLimit } from './open-files.js';
import { realTimers, type Timers } from './timers.js';
import { WaitRoom } from './waiting.js';

/** 64 MiB keeps a router under slow large uploads below 300 MB RSS at its defaults (docs/operations.md#limits). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 10_000;
export const DEFAULT_UPSTREAM_HEADER_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_WRITE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_WAITING = 1000;
const LISTEN_BACKLOG = 4096;

export interface RouterOptions {
  listen: { host: string; port: number };
  adminSocket: string;
  maxBodyBytes?: number;
  /** Request bytes held across all requests (--max-buffered). */
  maxBufferedBytes?: number;
  /** Open client connections (--max-connections). */
  maxConnections?: number;
  /** An engine's time to send a reply's head (--upstream-header-timeout). */
  upstreamHeaderTimeoutMs?: number;
  /** Serve Prometheus text at http://HOST:PORT/metrics. */
  metrics?: { host: string; port: number };
  log?: Logger;
  /** Node's server timeouts, for tests: a request's head (60 s), the whole request (300 s), how often they are checked (30 s). */
  clientTimeouts?: { headersMs?: number; requestMs?: number; checkEveryMs?: number };
  /** The clock, for tests; read once per request that acquires a replica. */
  now?: () => Date;
  /** The clock and timers of ejection, waiting and write timeouts, for tests (overrides `now`). */
  timers?: Timers;
  /** No progress writing an answer to a client for this long cuts its connection (--write-timeout). */
  writeTimeoutMs?: number;
  /** Requests waiting for a replica, across all models (--max-waiting). */
  maxWaiting?: number;
  /** Engine connections in total (--max-engine-connections); default 10,000 or what the open-file limit allows. */
  maxEngineConnections?: number;
  /** Engine connections per model (--max-model-connections); default the total. */
  maxModelConnections?: number;
  /** Liveness and waiting defaults for models the table gives no settings (--consecutive-errors, --stall-after, --eject-for, --wait-timeout). */
  liveness?: Partial<LivenessSettings>;
}

export interface RunningRouter {
  /** The TCP port actually bound (useful with port 0). */
  port: number;
  /** The metrics port actually bound, when --metrics was given. */
  metricsPort: number | null;
  /** Answer bytes held in the router for clients not reading (for tests and bench:router). */
  heldAnswerBytes(): number;
  /** Request bytes --max-buffered counts now: what request bodies pin (for tests and bench:router). */
  heldBodyBytes(): number;
  /**
   * Stop accepting, let requests in flight finish for up to `graceMs` (default 0),
   * then cut what is left and remove the admin socket.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startRouter(opts: RouterOptions): Promise<RunningRouter> {
  const now = opts.now;
  const timers: Timers = opts.timers ?? (now ? { ...realTimers, now: () => now().getTime() } : realTimers);
  const log = opts.log ?? silentLogger;
  const state = createRouterState(timers.now);
  state.defaults = { ...DEFAULT_LIVENESS, ...opts.liveness };
  const maxEngine = opts.maxEngineConnections ?? defaultEngineConnections(openFileLimit());
  const maxPerModel = Math.min(opts.maxModelConnections ?? maxEngine, maxEngine);
  const upstreams = createUpstreams({ headerTimeoutMs: opts.upstreamHeaderTimeoutMs ?? DEFAULT_UPSTREAM_HEADER_TIMEOUT_MS, maxConnections: maxPerModel });
  state.onDropped = (gone) => upstreams.drop(gone);
  const metrics = opts.metrics ? createRouterMetrics() : null;
  const upstreamWarning = throttled(log, 10_000);
  const waiting = new WaitRoom(opts.maxWaiting ?? DEFAULT_MAX_WAITING, timers);
  state.waitingOf = () => waiting.usage();
  // A new table may give waiting requests a replica (or take their model away: they get 404).
  state.onSwapped = () => waiting.wakeAll();
  const ejector = new Ejector(state, timers, {
    onReturn: (model) => {
      log.log('info', `model ${model}: a replica is back in rotation`, { model });
      waiting.wake(model);
    },
    onEject: (u, reason, untilMs) =>
      log.log('warn', `replica ${u.replica} ejected (${reason}) until ${new Date(untilMs).toISOString()}`, { replica: u.replica, reason }),
  });
  ejector.start();
  const budget = new BodyBudget(opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  const backlogged = new Set<{ readonly backlog: number }>();
  const proxy = createProxy({
    state,
    upstreams,
    budget,
    backlogged,
    stats: metrics?.stats ?? new RouterStats(),
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onUpstreamError: (replica, err) => upstreamWarning(replica, 'warn', `replica ${replica} failed a request: ${err.message}`, { replica }),
    timers,
    ejector,
    waiting,
    slots: new EngineSlots(maxEngine, maxPerModel),
    writeTimeoutMs: opts.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
  });
  const t = opts.clientTimeouts ?? {};
  const server = http.createServer(
    {
      noDelay: true,
      // Longer than common client pools keep idle connections, so the router is not the side that drops them mid-reuse.
      keepAliveTimeout: 65_000,
      headersTimeout: t.headersMs ?? 60_000,
      requestTimeout: t.requestMs ?? 300_000,
      connectionsCheckingInterval: t.checkEveryMs ?? 30_000,
      // Checked by the proxy itself, so the refusal is OpenAI's error JSON rather than a bare 400.
      requireHostHeader: false,
    },
    proxy.handle,
  );
  server.on('checkContinue', proxy.checkContinue);
  guardFrontDoor(server, { maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS });
  const admin = createAdminServer(state, log);
  await listenAdmin(admin, opts.adminSocket);
  let metricsServer: http.Server | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A flood of reconnecting clients overflows Node's default backlog (511) when the router is slow to
      // accept: the dropped SYNs of everyone else then wait 1 s, 3 s, 7 s for a retry. The kernel caps it at somaxconn.
      server.listen({ port: opts.listen.port, host: opts.listen.host, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (metrics && opts.metrics) metricsServer = await serveMetrics(metrics, opts.metrics);
  } catch (err) {
    ejector.stop();
    await Promise.all([closeServer(admin), server.listening ? closeServer(server) : undefined]);
    await unlink(opts.adminSocket).catch(() => undefined);
    if (err instanceof RouterError) throw err;
    const where = `${opts.listen.host}:${opts.listen.port}`;
    throw new RouterError(`cannot listen on ${where}: ${(err as Error).message}`, { cause: err });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.listen.port;
  const metricsAddress = metricsServer?.address();
  const metricsPort = typeof metricsAddress === 'object' && metricsAddress ? metricsAddress.port : null;
  let closing: Promise<void> | null = null;
  return {
    port,
    metricsPort,
    heldAnswerBytes() {
      let n = 0;
      for (const b of backlogged) n += b.backlog;
      return n;
    },
    heldBodyBytes: () => budget.used,
    close(graceMs = 0) {
      closing ??= (async () => {
        ejector.stop();
        const closed = Promise.all([closeServer(server), closeServer(admin), metricsServer ? closeServer(metricsServer) : undefined]);
        admin.closeAllConnections();
        metricsServer?.closeAllConnections();
        // A kept-alive connection turns idle when its last answer ends: close it then.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
        clearInterval(sweep);
        clearTimeout(timer);
        server.closeAllConnections();
        await closed;
        await upstreams.destroy();
      })();
      return closing;
    },
  };
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
