// The router's kept-alive connections to engines, per upstream URL, most
// recently used first so the cold ones age out. See upstream-connection.ts for
// why the router speaks HTTP/1.1 to engines itself.

import net from 'node:net';
import tls from 'node:tls';
import type { Upstream } from './table.js';
import { Connection, type ConnectionOwner, type UpstreamSink } from './upstream-connection.js';

const IDLE_MS = 4_000; // under the 5 s keep-alive of common engine servers (uvicorn, Node)
const MAX_IDLE_PER_UPSTREAM = 256;
const CONNECT_TIMEOUT_MS = 5_000;

/** Kept-alive connections per upstream, most recently used first (so the cold ones age out). */
export class UpstreamPool implements ConnectionOwner {
  private readonly idle = new Map<string, Connection[]>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
  }

  /** Send a request to `u` on a kept-alive connection (or a new one) and report the reply to `sink`. */
  send(u: Upstream, head: string, body: string | Buffer, sink: UpstreamSink): Connection {
    const key = u.url;
    const list = this.idle.get(key);
    for (let kept = list?.pop(); kept; kept = list!.pop()) {
      // An engine's FIN ends our side at once (no half-open sockets), before 'close'
      // takes it out of the pool: such a socket would only fail the request.
      if (!kept.socket.writable) {
        kept.socket.destroy();
        continue;
      }
      kept.start(sink, head, body, true);
      return kept;
    }
    const socket = u.https
      ? tls.connect({ host: u.hostname, port: u.port, servername: net.isIP(u.hostname) ? undefined : u.hostname })
      : net.connect({ host: u.hostname, port: u.port });
    // Nagle would hold a small request back until the previous segment's ACK.
    socket.setNoDelay(true);
    // A host that drops SYNs would hold the request for minutes of kernel retries;
    // failing it here lets the retry try another replica while nothing was sent.
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy());
    socket.once(u.https ? 'secureConnect' : 'connect', () => socket.setTimeout(0));
    const conn = new Connection(socket, this, key);
    conn.start(sink, head, body, false);
    return conn;
  }

  park(conn: Connection): void {
    let list = this.idle.get(conn.key);
    if (!list) this.idle.set(conn.key, (list = []));
    if (list.length >= MAX_IDLE_PER_UPSTREAM) return void conn.socket.destroy();
    conn.idleSince = Date.now();
    list.push(conn);
  }

  forget(conn: Connection): void {
    const list = this.idle.get(conn.key);
    const i = list ? list.indexOf(conn) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const list of this.idle.values()) {
      // Oldest first: stop at the first one still fresh.
      while (list.length > 0 && list[0]!.idleSince < cutoff) list.shift()!.socket.destroy();
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const list of this.idle.values()) for (const c of list.splice(0)) c.socket.destroy();
  }
}
