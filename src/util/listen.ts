// Listening on a --listen HOST:PORT (the console, the push webhook): one error
// line naming the flag when the address is taken or not ours, and the URL the
// log gives (an IPv6 host in brackets; port 0 resolved to the one given).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Resolves with `http://host:port` once `server` listens; rejects with a UsageError naming `--listen`. */
export async function listenOn(server: Server, listen: ListenAddress): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new UsageError(`--listen ${listen.host}:${listen.port}: cannot listen (${err.code ?? err.message})`)),
    );
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return `http://${shown}:${port}`;
}
