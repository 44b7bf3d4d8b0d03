// The engine side of the proxy: one undici Pool of kept-alive connections per
// upstream, made on first use. undici (Node's own HTTP client project) parses the
// engines' framing with llhttp, the parser Node's server uses: the place where
// response smuggling lives is the one the most eyes are on.

import { Pool, type Dispatcher } from 'undici';
import type { Upstream } from './table.js';

export interface UpstreamOptions {
  /** How long an engine may take to send a reply's whole head (time to first byte of the answer). */
  headerTimeoutMs: number;
  /** Connections to one replica at most: the model's bound (engine-slots.ts counts across replicas). */
  maxConnections: number;
}

/** Under the 5 s keep-alive of common engine servers (uvicorn, Node), so the router is not the one surprised by a close. */
const KEEP_ALIVE_MS = 4_000;
/** A host that drops SYNs would hold a request for minutes of kernel retries; this lets the retry try another replica. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A reply head larger than this is not an engine's. */
const MAX_HEAD_BYTES = 64 * 1024;

export interface Upstreams {
  poolFor(u: Upstream): Dispatcher;
  /** Upstreams gone from the table: their pools close once their requests finish (a drain, never a cut). */
  drop(gone: readonly Upstream[]): void;
  /** Cut every connection (router shutdown). */
  destroy(): Promise<void>;
}

export function createUpstreams(opts: UpstreamOptions): Upstreams {
  const live = new Set<Pool>();
  return {
    poolFor(u) {
      if (u.pool) return u.pool;
      const pool = new Pool(u.origin, {
        // As many connections as requests in flight, up to the model's bound (engine-slots.ts refuses beyond it first).
        connections: opts.maxConnections,
        pipelining: 1,
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        connectTimeout: CONNECT_TIMEOUT_MS,
        headersTimeout: opts.headerTimeoutMs,
        // Tokens of a stream may be minutes apart (a long prefill, an idle stream): only the client leaving ends one.
        bodyTimeout: 0,
        maxHeaderSize: MAX_HEAD_BYTES,
      });
      live.add(pool);
      u.pool = pool;
      return pool;
    },
    drop(gone) {
      for (const u of gone) {
        const pool = u.pool as Pool | null;
        if (!pool) continue;
        void pool.close().finally(() => live.delete(pool));
      }
    },
    async destroy() {
      await Promise.all([...live].map((p) => p.destroy().catch(() => undefined)));
      live.clear();
    },
  };
}
