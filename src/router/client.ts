// `llmgw router usage|endpoints`: the client side of the admin socket. It runs on
// the router host (reached over SSH, or in-process in the simulated fleet), so it
// takes its environment as an argument and never reads process.env.

import http from 'node:http';
import { parseEndpoints } from './endpoints.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';
import { errnoCode } from '../util/errno.js';

export const DEFAULT_ADMIN_SOCKET = '/run/llmgw/router.sock';

/** `--admin SOCKET`, else $LLMGW_ROUTER_SOCKET, else /run/llmgw/router.sock. */
export function resolveAdminSocket(flag: string | undefined, env: Record<string, string | undefined>): string {
  return flag || env['LLMGW_ROUTER_SOCKET'] || DEFAULT_ADMIN_SOCKET;
}

export interface ClientResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Run `usage` (input ignored) or `endpoints` (input: the table JSON) against the
 * router whose admin socket the env names. Prints JSON on stdout, or one line on
 * stderr and code 1.
 */
export async function runRouterClient(subcommand: string, input: string, env: Record<string, string | undefined>): Promise<ClientResult> {
  const socket = resolveAdminSocket(undefined, env);
  const fail = (line: string): ClientResult => ({ stdout: '', stderr: `llmgw router ${subcommand}: ${line}\n`, code: 1 });
  let request: { method: string; path: string; body?: string };
  if (subcommand === 'usage') request = { method: 'GET', path: '/usage' };
  else if (subcommand === 'endpoints') {
    const parsed = parseEndpoints(input);
    if (!parsed.ok) return fail(`invalid table on stdin: ${parsed.errors.join('; ')}`);
    request = { method: 'PUT', path: '/endpoints', body: JSON.stringify(parsed.value) };
  } else return fail(`unknown subcommand '${subcommand}' (usage, endpoints)`);
  let reply: { status: number; body: string };
  try {
    reply = await adminRequest(socket, request);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ECONNREFUSED') {
      return fail(`no router is listening on ${socket} (is \`llmgw router serve\` running?)`);
    }
    return fail(`cannot reach the router at ${socket}: ${(err as Error).message}`);
  }
  const fenced = reply.status === 409 ? fencedReply(reply.body) : null;
  if (fenced) {
    // A fenced table is an answer, not a failure to answer: the reply says so
    // (ok:false) for the reconciler to read, as the agent's results do.
    return { stdout: JSON.stringify(fenced) + '\n', stderr: `llmgw router ${subcommand}: the router refused the table: ${fenced.error}\n`, code: 0 };
  }
  if (reply.status !== 200) {
    const errors = tryErrors(reply.body);
    return fail(`the router refused the request (HTTP ${reply.status})${errors ? `: ${errors}` : ''}`);
  }
  if (subcommand === 'usage') {
    // What gather will check on the far side of SSH is checked here too, so a
    // socket answered by something else fails on the router host, in one line.
    const problem = usageProblem(reply.body);
    if (problem) return fail(`the reply on ${socket} is not a usage report: ${problem}`);
  }
  return { stdout: reply.body.trimEnd() + '\n', stderr: '', code: 0 };
}

function usageProblem(body: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const checked = getValidator('router-usage')(value);
  return checked.ok ? null : formatSchemaIssues(checked.errors, 3);
}

function fencedReply(body: string): { version: 1; ok: false; error: string } | null {
  try {
    const v = JSON.parse(body) as { ok?: unknown; error?: unknown };
    return v.ok === false && typeof v.error === 'string' ? { version: 1, ok: false, error: v.error } : null;
  } catch {
    return null;
  }
}

function tryErrors(body: string): string | null {
  try {
    const errors = (JSON.parse(body) as { errors?: unknown }).errors;
    return Array.isArray(errors) ? errors.join('; ') : null;
  } catch {
    return null;
  }
}

const ADMIN_TIMEOUT_MS = 10_000;

function adminRequest(socketPath: string, r: { method: string; path: string; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method: r.method, path: r.path, timeout: ADMIN_TIMEOUT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ADMIN_TIMEOUT_MS / 1000}s`)));
    req.on('error', reject);
    if (r.body !== undefined) req.setHeader('content-type', 'application/json');
    req.end(r.body);
  });
}
