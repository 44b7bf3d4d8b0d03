// A lean HTTP/1.1 client for the router's side of the proxy. Node's http client
// spends more CPU per small request than the engine it talks to (agent lookup,
// ClientRequest and IncomingMessage streams, header objects); behind a proxy that
// doubles the cost of every request. Here a kept-alive socket writes the request
// in one write() and the reply's framing (Content-Length, chunked, or
// close-delimited) is read by a small state machine that hands body bytes
// straight to the client's response.

import type net from 'node:net';

/** What a connection reports to the request it carries. */
export interface UpstreamSink {
  /** Status and headers, hop-by-hop ones already dropped; hasLength = the head tells where the body ends (Content-Length, 204, 304). */
  head(status: number, headers: string[], hasLength: boolean): void;
  /** Body bytes as they arrive; false asks the connection to pause until resume(). */
  data(chunk: Buffer): boolean;
  end(): void;
  /**
   * The exchange broke. `responded` = the head had already been passed on;
   * `heard` = the engine had sent at least one byte (so it took the request: no retry);
   * `reused` = on a kept-alive socket.
   */
  fail(responded: boolean, reused: boolean, heard: boolean): void;
}

/** Where a connection goes back when its reply is complete (the pool). */
export interface ConnectionOwner {
  park(conn: Connection): void;
  forget(conn: Connection): void;
}

type Phase = 'idle' | 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers' | 'until-close';

const MAX_HEAD_BYTES = 64 * 1024;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export class Connection {
  private phase: Phase = 'head';
  private pending: Buffer | null = null;
  private remaining = 0;
  private line = '';
  private keepAlive = true;
  private responded = false;
  private heard = false;
  private reused = false;
  idleSince = 0;
  sink: UpstreamSink | null = null;

  constructor(
    readonly socket: net.Socket,
    private readonly pool: ConnectionOwner,
    readonly key: string,
  ) {
    socket.on('data', (b: Buffer) => this.onData(b));
    socket.on('error', () => undefined); // 'close' follows and says what it means
    socket.on('close', () => this.onClose());
  }

  /** `head` and a latin1 `body` leave in one write(); a Buffer body (a large one) in one writev(). */
  start(sink: UpstreamSink, head: string, body: string | Buffer, reused: boolean): void {
    this.sink = sink;
    this.reused = reused;
    this.phase = 'head';
    this.responded = false;
    this.heard = false;
    this.keepAlive = true;
    if (typeof body === 'string') this.socket.write(head + body, 'latin1');
    else {
      this.socket.cork();
      this.socket.write(head, 'latin1');
      this.socket.write(body);
      this.socket.uncork();
    }
  }

  resume(): void {
    this.socket.resume();
  }

  /** The client left: this socket is mid-reply and cannot be reused. */
  abort(): void {
    this.sink = null;
    this.socket.destroy();
  }

  private onClose(): void {
    this.pool.forget(this);
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    if (this.phase === 'until-close') sink.end();
    else sink.fail(this.responded, this.reused, this.heard);
  }

  private onData(buf: Buffer): void {
    // Bytes on a parked socket: the engine is out of step with us, so drop it.
    if (!this.sink) return void this.socket.destroy();
    this.heard = true;
    let off = 0;
    while (off < buf.length && this.sink) {
      switch (this.phase) {
        case 'head': {
          const data = this.pending ? Buffer.concat([this.pending, buf.subarray(off)]) : buf.subarray(off);
          const end = data.indexOf('\r\n\r\n');
          if (end < 0) {
            if (data.length > MAX_HEAD_BYTES) return this.broken();
            this.pending = Buffer.from(data);
            return;
          }
          this.pending = null;
          if (end > MAX_HEAD_BYTES) return this.broken(); // however it was cut into packets
          buf = data;
          off = end + 4;
          if (!this.parseHead(data.toString('latin1', 0, end))) return this.broken();
          if ((this.phase as Phase) === 'length' && this.remaining === 0) this.finish(off === buf.length);
          break;
        }
        case 'length':
        case 'chunk-data': {
          const n = Math.min(this.remaining, buf.length - off);
          this.remaining -= n;
          const chunk = buf.subarray(off, (off += n));
          if (!this.sink.data(chunk)) this.socket.pause();
          if (this.remaining === 0) {
            if (this.phase === 'length') this.finish(off === buf.length);
            else this.phase = 'chunk-crlf';
          }
          break;
        }
        case 'until-close':
          if (!this.sink.data(off === 0 ? buf : buf.subarray(off))) this.socket.pause();
          return;
        case 'chunk-crlf':
        case 'chunk-size':
        case 'trailers': {
          const nl = buf.indexOf('\n', off);
          const piece = buf.toString('latin1', off, nl < 0 ? buf.length : nl + 1);
          if (nl < 0) {
            this.line += piece;
            if (this.line.length > 8192) return this.broken();
            return;
          }
          off = nl + 1;
          const line = (this.line + piece).replace(/\r?\n$/, '');
          this.line = '';
          if (!this.onLine(line, off === buf.length)) return this.broken();
          break;
        }
        case 'idle':
          return this.broken(); // more bytes than the reply framed: out of step
      }
    }
  }

  /** One framing line of a chunked body. */
  private onLine(line: string, drained: boolean): boolean {
    if (this.phase === 'chunk-crlf') {
      this.phase = 'chunk-size';
      return line === '';
    }
    if (this.phase === 'trailers') {
      if (line === '') this.finish(drained);
      return true;
    }
    const size = line.split(';', 1)[0]!.trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(size)) return false;
    this.remaining = parseInt(size, 16);
    this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    return true;
  }

  private parseHead(text: string): boolean {
    const lines = text.split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!status) return false;
    const code = Number(status[2]);
    if (code >= 100 && code < 200) return true; // 100 Continue, 103 Early Hints: the real head follows
    const headers: string[] = [];
    let length: string | null = null;
    let chunked = false;
    let encoded = false;
    let close = status[1] === '0';
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i]!;
      const colon = l.indexOf(':');
      if (colon <= 0 || l.charCodeAt(0) === 32 || l.charCodeAt(0) === 9) return false;
      const name = l.slice(0, colon);
      const value = l.slice(colon + 1).trim();
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== null && length !== value)) return false;
        length = value;
      } else if (lower === 'transfer-encoding') {
        encoded = true;
        chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      }
      else if (lower === 'connection') close = /\bclose\b/i.test(value) || (status[1] === '0' && !/\bkeep-alive\b/i.test(value));
      if (!HOP_BY_HOP.has(lower)) headers.push(name, value);
    }
    this.keepAlive = !close;
    this.responded = true;
    // RFC 9112 §6.3: 204 and 304 end at the head whatever framing they announce;
    // then Transfer-Encoding wins over Content-Length, and a final coding other
    // than chunked reads until close.
    const noBody = code === 204 || code === 304;
    if (encoded && length !== null) removeHeader(headers, 'content-length');
    if (noBody) {
      this.remaining = 0;
      this.phase = 'length';
    } else if (chunked) {
      this.phase = 'chunk-size';
    } else if (length !== null && !encoded) {
      this.remaining = Number(length);
      this.phase = 'length';
    } else {
      this.phase = 'until-close';
      this.keepAlive = false;
    }
    this.sink!.head(code, headers, noBody || (length !== null && !encoded));
    return true;
  }

  private finish(drained: boolean): void {
    const sink = this.sink;
    if (!sink) return; // aborted while the head was passed on
    this.sink = null;
    this.phase = 'idle';
    // Paused for a slow client's sake; the next request on this socket must read.
    this.socket.resume();
    if (this.keepAlive && drained) this.pool.park(this);
    else this.socket.destroy();
    sink.end();
  }

  private broken(): void {
    this.socket.destroy(); // onClose tells the sink
  }
}

function removeHeader(headers: string[], lower: string): void {
  for (let i = headers.length - 2; i >= 0; i -= 2) if (headers[i]!.toLowerCase() === lower) headers.splice(i, 2);
}
