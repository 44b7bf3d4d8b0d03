// Listening on a HOST:PORT flag (the console's and the push webhook's --listen,
// --metrics): one error line naming the flag when the address is taken or not
// ours, and the URL the log gives (an IPv6 host in brackets; port 0 resolved to
// the one given).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Resolves with `http://host:port` once `server` listens; rejects with a UsageError naming `flag`. */
export async function listenOn(server: Server, listen: ListenAddress, flag = '--listen'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new UsageError(`${flag} ${listen.host}:${listen.port}: cannot listen (${err.code ?? err.message})`)),
    );
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return `http://${shown}:${port}`;
}
