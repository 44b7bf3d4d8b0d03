// `llmgw router serve|usage|endpoints` (docs/protocol.md): the reference router and
// the two admin commands the reconciler runs on a router host.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../../errors.js';
import { resolveAdminSocket, runRouterClient } from '../../router/client.js';
import { startRouter } from '../../router/server.js';
import { readAll } from '../../util/read-all.js';
import type { Io } from '../io.js';
import { withoutRepoOption } from '../repo-options.js';

const HELP = `Usage:
  llmgw router serve [--listen HOST:PORT] [--admin SOCKET] [--max-body BYTES]
  llmgw router usage [--admin SOCKET]          print {"version":1,"startedAt":…,"lastUsed":{…}}
  llmgw router endpoints [--admin SOCKET]      read the table JSON on stdin and swap it in

The admin socket is --admin, else $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock.
`;

const SHUTDOWN_GRACE_MS = 10_000;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = withoutRepoOption(argv);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout.write(HELP);
    return sub === undefined ? 1 : 0;
  }
  // `router serve --help` and the others: the one usage text covers all three.
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(HELP);
    return 0;
  }
  if (sub === 'serve') return serve(rest, io);
  if (sub === 'usage' || sub === 'endpoints') return client(sub, rest, io);
  throw new UsageError(`unknown subcommand '${sub}' (serve, usage, endpoints)`);
}

async function client(sub: 'usage' | 'endpoints', argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { admin: { type: 'string' } });
  const socket = resolveAdminSocket(values.admin as string | undefined, io.env);
  // `usage` takes nothing: its stdin is left unread, so a terminal never blocks it.
  const input = sub === 'endpoints' ? await readAll(io.stdin) : '';
  const r = await runRouterClient(sub, input, { ...io.env, LLMGW_ROUTER_SOCKET: socket });
  io.stdout.write(r.stdout);
  io.stderr.write(r.stderr);
  return r.code;
}

async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    listen: { type: 'string', default: '127.0.0.1:8080' },
    admin: { type: 'string' },
    'max-body': { type: 'string' },
  });
  const listen = parseListen(values.listen as string);
  const maxBody = values['max-body'] as string | undefined;
  const maxBodyBytes = maxBody === undefined ? undefined : Number(maxBody);
  if (maxBodyBytes !== undefined && !(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw new UsageError(`--max-body must be a positive number of bytes, got '${maxBody}'`);
  }
  const adminSocket = resolveAdminSocket(values.admin as string | undefined, io.env);
  const router = await startRouter({ listen, adminSocket, maxBodyBytes });
  const shown = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  io.stderr.write(`llmgw router: serving on http://${shown}:${router.port}, admin socket ${adminSocket}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // Streams in flight get a moment to finish; a restart should not cut every answer.
  await router.close(SHUTDOWN_GRACE_MS);
  return 0;
}

/** `host:port`, `[v6]:port`, or `:port` (all interfaces). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--listen must be HOST:PORT, got '${text}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

function parse(argv: string[], options: ParseArgsConfig['options']): { values: Record<string, unknown> } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: false, strict: true }) as { values: Record<string, unknown> };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
