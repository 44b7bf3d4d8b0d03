// `llmgw router serve|usage|endpoints` (docs/protocol.md): the reference router and
// the two admin commands the reconciler runs on a router host.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../config/duration.js';
import { resolveAdminSocket, runRouterClient } from '../../router/client.js';
import { createLogger } from '../../router/log.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../router/proxy.js';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_MAX_CONNECTIONS, startRouter } from '../../router/server.js';
import { tightenHeapGrowth } from '../../router/heap.js';
import { readAll } from '../../util/read-all.js';
import type { Io } from '../io.js';
import { withoutRepoOption } from '../repo-options.js';

const SERVE_HELP = `Usage: llmgw router serve [options]

The reference router (docs/protocol.md, docs/operations.md): an OpenAI-style
proxy that sends each request to a replica of the model it names, with the
table the reconciler keeps current over the admin socket.

  --listen HOST:PORT              where clients connect (default 127.0.0.1:8080)
  --admin SOCKET                  the admin socket (default $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock)
  --max-body BYTES                largest request body (default 10MiB; 413 over it)
  --max-buffered BYTES            request bytes held across all requests (default 64MiB; 503 over it)
  --max-connections N             open client connections (default 10000; 503 and close over it)
  --max-engine-connections N      connections to engines in total (default 10000, or half of what the
                                  open-file limit leaves; 503 over it)
  --max-model-connections N       connections to one model's engines (default: the total)
  --upstream-header-timeout DUR   an engine's time to send its reply head (default 10m); past it the
                                  request is retried once on another replica, else 504
  --write-timeout DUR             no progress writing an answer to a client for this long cuts its
                                  connection (default 60s)
  --consecutive-errors N          failed requests in a row that eject a replica (default 5)
  --stall-after DUR               no response byte while streaming for this long ejects (default 60s)
  --eject-for DUR                 first ejection's length, doubling on repeats up to 5m (default 30s)
  --wait-timeout DUR              how long a request waits for a replica of its model (default 5m)
  --max-waiting N                 requests waiting for a replica, all models together (default 1000)
  --metrics HOST:PORT             serve Prometheus text at http://HOST:PORT/metrics
  --log-format text|json          log lines on stderr (default text; json: one object a line)

BYTES is a number with an optional KiB, MiB or GiB; DUR is 90s, 10m, 1h30m. The table's
per-model settings (docs/protocol.md) override the ejection and waiting defaults.
`;

const USAGE_HELP = `Usage: llmgw router usage [--admin SOCKET]

Print the running router's usage report (docs/protocol.md):
{"version":1,"startedAt":…,"lastUsed":{…},"inflight":{…},"served":{…},"ejected":{…},"waiting":{…}}
The admin socket is --admin, else $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock.
`;

const ENDPOINTS_HELP = `Usage: llmgw router endpoints [--admin SOCKET] < table.json

Read a routing table on stdin and swap it in whole (docs/protocol.md):
{"version":1,"models":{"<model>":[{"replica":"<id>","url":"http://host:port"}]},
 "routing":{"<model>":"prefix"|"least-inflight"},      (optional; default prefix)
 "lease":{"epoch":N,"holder":"…"},                     (optional; a lower epoch than seen is refused)
 "settings":{"<model>":{"consecutiveErrors":5,"stallAfterMs":60000,"ejectForMs":30000,
                        "waitTimeoutMs":300000,"adapters":["<name>"]}}}   (optional)
The admin socket is --admin, else $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock.
`;

const HELP = `Usage:
  llmgw router serve [--listen HOST:PORT] [--admin SOCKET] [options]   run the router (serve --help)
  llmgw router usage [--admin SOCKET]          print {"version":1,"startedAt":…,"lastUsed":{…},…}
  llmgw router endpoints [--admin SOCKET]      read the table JSON on stdin and swap it in

The admin socket is --admin, else $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock.
See docs/protocol.md.
`;

const SHUTDOWN_GRACE_MS = 10_000;

const wantsHelp = (argv: string[]): boolean => argv.includes('--help') || argv.includes('-h');

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = withoutRepoOption(argv);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout.write(HELP);
    return sub === undefined ? 1 : 0;
  }
  if (sub === 'serve') {
    if (wantsHelp(rest)) return help(io, SERVE_HELP);
    return serve(rest, io);
  }
  if (sub === 'usage' || sub === 'endpoints') {
    if (wantsHelp(rest)) return help(io, sub === 'usage' ? USAGE_HELP : ENDPOINTS_HELP);
    return client(sub, rest, io);
  }
  throw new UsageError(`unknown subcommand '${sub}' (serve, usage, endpoints)`);
}

function help(io: Io, text: string): number {
  io.stdout.write(text);
  return 0;
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
    'max-buffered': { type: 'string' },
    'max-connections': { type: 'string' },
    'upstream-header-timeout': { type: 'string' },
    'max-engine-connections': { type: 'string' },
    'max-model-connections': { type: 'string' },
    'write-timeout': { type: 'string' },
    'consecutive-errors': { type: 'string' },
    'stall-after': { type: 'string' },
    'eject-for': { type: 'string' },
    'wait-timeout': { type: 'string' },
    'max-waiting': { type: 'string' },
    metrics: { type: 'string' },
    'log-format': { type: 'string', default: 'text' },
  });
  const listen = parseListen(values.listen as string);
  const format = values['log-format'] as string;
  if (format !== 'text' && format !== 'json') throw new UsageError(`--log-format must be text or json, got '${format}'`);
  const maxBodyBytes = optional(values['max-body'], '--max-body', parseBytes) ?? DEFAULT_MAX_BODY_BYTES;
  const maxBufferedBytes = optional(values['max-buffered'], '--max-buffered', parseBytes) ?? DEFAULT_MAX_BUFFERED_BYTES;
  const maxConnections = optional(values['max-connections'], '--max-connections', parseCount) ?? DEFAULT_MAX_CONNECTIONS;
  const upstreamHeaderTimeoutMs = optional(values['upstream-header-timeout'], '--upstream-header-timeout', positiveDuration);
  const writeTimeoutMs = optional(values['write-timeout'], '--write-timeout', positiveDuration);
  const maxEngineConnections = optional(values['max-engine-connections'], '--max-engine-connections', parseCount);
  const maxModelConnections = optional(values['max-model-connections'], '--max-model-connections', parseCount);
  const maxWaiting = optional(values['max-waiting'], '--max-waiting', parseCount);
  const liveness = {
    ...defined('consecutiveErrors', optional(values['consecutive-errors'], '--consecutive-errors', parseCount)),
    ...defined('stallAfterMs', optional(values['stall-after'], '--stall-after', positiveDuration)),
    ...defined('ejectForMs', optional(values['eject-for'], '--eject-for', positiveDuration)),
    ...defined('waitTimeoutMs', optional(values['wait-timeout'], '--wait-timeout', positiveDuration)),
  };
  const metrics = values.metrics === undefined ? undefined : parseListen(values.metrics as string, '--metrics');
  const adminSocket = resolveAdminSocket(values.admin as string | undefined, io.env);
  const log = createLogger(format, (line) => io.stderr.write(line));
  tightenHeapGrowth();
  const router = await startRouter({
    listen,
    adminSocket,
    maxBodyBytes,
    maxBufferedBytes,
    maxConnections,
    upstreamHeaderTimeoutMs,
    metrics,
    log,
    liveness,
    ...defined('writeTimeoutMs', writeTimeoutMs),
    ...defined('maxEngineConnections', maxEngineConnections),
    ...defined('maxModelConnections', maxModelConnections),
    ...defined('maxWaiting', maxWaiting),
  });
  const where = `http://${hostForUrl(listen.host)}:${router.port}`;
  const metricsAt = metrics ? `, metrics at http://${hostForUrl(metrics.host)}:${String(router.metricsPort)}/metrics` : '';
  log.log('info', `serving on ${where}, admin socket ${adminSocket}${metricsAt}`, { listen: where, admin: adminSocket });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // Streams in flight get a moment to finish; a restart should not cut every answer.
  await router.close(SHUTDOWN_GRACE_MS);
  log.log('info', 'stopped');
  return 0;
}

function positiveDuration(text: string): number | null {
  const ms = parseDuration(text);
  return ms !== null && ms > 0 ? ms : null;
}

/** `{key: value}` when the value is given, else nothing (exactOptionalPropertyTypes keeps absent and undefined apart). */
function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function optional<T>(text: unknown, flag: string, parse: (t: string) => T | null): T | undefined {
  if (text === undefined) return undefined;
  // The option's value comes from parseArgs untyped; whatever it is, it is shown and parsed as text.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- untrusted value, String() is the intended rendering
  const shown = String(text);
  const value = parse(shown);
  if (value === null) throw new UsageError(`${flag}: cannot use '${shown}' (see llmgw router serve --help)`);
  return value;
}

const BYTE_UNITS: Record<string, number> = { '': 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** `1048576`, `512KiB`, `256MiB`, `1GiB`: a positive whole number of bytes, or null. */
export function parseBytes(text: string): number | null {
  const m = /^([0-9]+)\s*(kib|mib|gib)?$/i.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]) * (BYTE_UNITS[(m[2] ?? '').toLowerCase()] ?? NaN);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function parseCount(text: string): number | null {
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** `host:port`, `[v6]:port`, or `:port` (all interfaces). */
export function parseListen(text: string, flag = '--listen'): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`${flag} must be HOST:PORT, got '${text}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

function parse(argv: string[], options: ParseArgsConfig['options']): { values: Record<string, unknown> } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: false, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
