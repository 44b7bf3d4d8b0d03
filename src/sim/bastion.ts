// A simulated bastion (jump host) for `ssh.proxyJump`: an ssh2 server that only
// forwards (direct-tcpip) to the address the client asks for, like
// `ssh -J bastion node`. Its host key is appended to the fleet's known_hosts,
// because llmgw checks the bastion's key too.

import { appendFile, readFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { userInfo } from 'node:os';
import ssh2 from 'ssh2';
import { generateSimKey, knownHostsLine, parsedKey, serverHostKey } from './keys.js';
import { acceptOnlyKey } from './ssh-host.js';

export interface SimBastion {
  host: string;
  port: number;
  user: string;
  /** Forwarded channels opened so far. */
  forwards(): number;
  /** SSH connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startSimBastion(opts: { address: string; knownHostsPath: string; identityFile: string }): Promise<SimBastion> {
  const clientKey = parsedKey(await readFile(opts.identityFile, 'utf8'));
  const hostKey = generateSimKey('llmgw-sim-bastion');
  const sockets = new Set<Socket>();
  let forwards = 0;
  let connections = 0;
  const server = new ssh2.Server({ hostKeys: [serverHostKey(hostKey)] }, (client) => {
    acceptOnlyKey(client, clientKey);
    client.on('ready', () => {
      client.on('tcpip', (accept, reject, info) => {
        const upstream = connect(info.destPort, info.destIP);
        upstream.once('error', () => (reject as (() => void) | undefined)?.());
        upstream.once('connect', () => {
          forwards += 1;
          const channel = accept();
          channel.on('error', () => upstream.destroy());
          upstream.removeAllListeners('error');
          upstream.on('error', () => channel.destroy());
          channel.pipe(upstream).pipe(channel);
          sockets.add(upstream);
          upstream.on('close', () => sockets.delete(upstream));
        });
      });
    });
  });
  const listener = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    server.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host: opts.address, port: 0 }, () => resolve());
  });
  const port = (listener.address() as { port: number }).port;
  await appendFile(opts.knownHostsPath, knownHostsLine(opts.address, port, hostKey) + '\n');
  return {
    host: opts.address,
    port,
    user: userInfo().username,
    forwards: () => forwards,
    connections: () => connections,
    close: async () => {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const s of sockets) s.destroy();
    },
  };
}
