// One simulated host: a TCP listener on its own loopback address that hands each
// connection to an ssh2 Server holding that host's key — or, under a fault, to
// nothing (hang), to a server with another key (wrong-hostkey), or closes the
// listener altogether (refuse), so the client sees what a real broken host does.

import { createServer, type Server as NetServer, type Socket } from 'node:net';
import ssh2 from 'ssh2';
import { knownHostsLine, serverHostKey, type SimKeyPair } from './keys.js';

export type SimFault = 'refuse' | 'hang' | 'slow' | 'garbage' | 'exit' | 'wrong-hostkey' | null;

export interface ExecResult {
  stdout: string;
  stderr?: string;
  code: number;
}

export type ExecHandler = (ctx: { host: string; command: string; stdin: string }) => Promise<ExecResult>;

export interface SimHostOptions {
  name: string;
  address: string;
  port: number;
  hostKey: SimKeyPair;
  /** The key presented under `wrong-hostkey`: not the one in known_hosts. */
  wrongKey: SimKeyPair;
  clientKey: ssh2.ParsedKey;
  handler: ExecHandler;
  slowMs: number;
  fault: SimFault;
}

/** Public-key auth for exactly one key, signature checked as sshd does. */
export function acceptOnlyKey(client: ssh2.Connection, allowed: ssh2.ParsedKey): void {
  client.on('error', () => undefined);
  client.on('authentication', (ctx) => {
    if (ctx.method !== 'publickey' || ctx.key.algo !== allowed.type || !ctx.key.data.equals(allowed.getPublicSSH())) {
      ctx.reject(['publickey']);
      return;
    }
    // ssh2's verify returns an Error (not false) when it cannot check: only `true` lets a client in.
    if (ctx.signature && ctx.blob && (allowed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) as boolean | Error) !== true) {
      ctx.reject();
      return;
    }
    ctx.accept();
  });
}

export class SimHost {
  readonly name: string;
  readonly address: string;
  port: number;
  fault: SimFault;
  /** TCP connections accepted so far (the keepAlive tests count them). */
  accepted = 0;
  private listener: NetServer | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly server: ssh2.Server;
  private impostor: ssh2.Server | null = null;

  constructor(private readonly opts: SimHostOptions) {
    this.name = opts.name;
    this.address = opts.address;
    this.port = opts.port;
    this.fault = opts.fault;
    this.server = new ssh2.Server({ hostKeys: [serverHostKey(opts.hostKey)] }, (client) => this.onClient(client));
  }

  async listen(): Promise<void> {
    if (this.listener) return;
    const listener = createServer((socket) => this.onSocket(socket));
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ host: this.address, port: this.port }, () => resolve());
    });
    this.port = (listener.address() as { port: number }).port;
    this.listener = listener;
  }

  /** This host's line for known_hosts (its real key, at its current port). */
  knownHostsLine(): string {
    return knownHostsLine(this.address, this.port, this.opts.hostKey);
  }

  /** Stop listening (new connections are refused); open ones stay. */
  async unlisten(): Promise<void> {
    const l = this.listener;
    this.listener = null;
    if (l) await new Promise<void>((resolve) => l.close(() => resolve()));
  }

  async setFault(fault: SimFault): Promise<void> {
    this.fault = fault;
    if (fault === 'refuse') await this.unlisten();
    else await this.listen();
  }

  /** Drop every open connection, as a rebooted host or a NAT timeout would. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    const closing = this.unlisten();
    this.dropConnections();
    await closing;
  }

  private onSocket(socket: Socket): void {
    this.accepted += 1;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (this.fault === 'hang') return; // TCP accepted, not one byte of SSH
    if (this.fault === 'wrong-hostkey') {
      this.impostor ??= new ssh2.Server({ hostKeys: [serverHostKey(this.opts.wrongKey)] }, (client) => this.onClient(client));
      this.impostor.injectSocket(socket);
    } else this.server.injectSocket(socket);
  }

  private onClient(client: ssh2.Connection): void {
    acceptOnlyKey(client, this.opts.clientKey);
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('exec', (accept, _reject, info) => {
          const stream = accept();
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('error', () => undefined);
          stream.once('end', () => {
            void this.answer(this.fault, info.command, Buffer.concat(chunks).toString('utf8')).then((r) => {
              if (r === null || stream.destroyed) return;
              // Reply, exit status, EOF and close leave in one TCP write, as a busy sshd's would.
              const sock = (client as unknown as { _sock?: Socket })._sock;
              sock?.cork();
              if (r.stdout) stream.write(r.stdout);
              if (r.stderr) stream.stderr.write(r.stderr);
              stream.exit(r.code);
              stream.end();
              if (sock) process.nextTick(() => sock.uncork());
            });
          });
        });
      });
    });
  }

  private async answer(fault: SimFault, command: string, stdin: string): Promise<ExecResult | null> {
    if (fault === 'garbage') return { stdout: 'Welcome to gpu-node! <html>not json</html>\n', code: 0 };
    if (fault === 'exit') return { stdout: '', stderr: `starting agent\nsim: ${this.name} failed on purpose\n`, code: 3 };
    if (fault === 'slow') await new Promise((r) => setTimeout(r, this.opts.slowMs).unref());
    try {
      return await this.opts.handler({ host: this.name, command, stdin });
    } catch (err) {
      return { stdout: '', stderr: `sim handler: ${(err as Error).message}\n`, code: 1 };
    }
  }
}
