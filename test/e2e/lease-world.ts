// The lease end to end (docs/safety.md#fencing, #clocks): what the nodes and
// the router of a simulated fleet were asked, in order, with the epoch each
// changing request carried and whether it was executed or refused; nodes
// that answer `agent apply` slowly for the holders a test names; and real
// `llmgw run` processes, optionally on a clock shifted by libfaketime (the
// library Debian's `faketime` preloads), so two reconcilers on one remote
// can disagree about the time by an hour.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { SIM_AGENT_COMMAND, SIM_ROUTER_COMMAND } from '../../src/demo/sim-config.js';
import type { ExecHandler } from '../../src/sim/fleet.js';

/** One changing request a simulated host was asked, as it saw it. */
export interface Asked {
  host: string;
  kind: 'apply' | 'endpoints';
  epoch: number;
  holder: string;
  /** The replica ids an `agent apply` asked to start. */
  starts: string[];
  /** Order of arrival at the host (before any slowness), over the whole fleet. */
  arrived: number;
  /** When it was handed to the real agent or router (after the slowness): the order the node decided in. */
  admitted: number;
  /** When the answer was ready; -1 while in flight. */
  done: number;
  /** Executed (true), refused as fenced (false); null while in flight or when it failed otherwise. */
  executed: boolean | null;
  /** The refusal, when refused. */
  error?: string;
  /** Wall clock (the test process's) at arrival and at the answer. */
  arrivedAt: number;
  doneAt: number;
}

export interface NodeLog {
  asked: Asked[];
  /** Wraps the world's exec handler (SimWorldOptions.wrapHandler). */
  wrap: (inner: ExecHandler) => ExecHandler;
  /** How long a host takes before it acts on an `agent apply` (default: at once). */
  slowApply: (delay: (a: Pick<Asked, 'host' | 'epoch' | 'holder'>) => number) => void;
}

function leaseOf(stdin: string): { epoch: number; holder: string; starts: string[] } {
  try {
    const req = JSON.parse(stdin) as { lease?: { epoch?: unknown; holder?: unknown }; start?: { replica?: unknown }[] };
    const lease = req.lease;
    return {
      epoch: typeof lease?.epoch === 'number' ? lease.epoch : 0,
      holder: typeof lease?.holder === 'string' ? lease.holder : '',
      starts: (req.start ?? []).map((s) => String(s.replica)),
    };
  } catch {
    return { epoch: 0, holder: '', starts: [] };
  }
}

/** Whether an answer says "fenced" (docs/protocol.md#fencing): the agent's per-entry refusals, the router's `ok:false`. */
function refusalIn(stdout: string): string | null {
  try {
    const reply = JSON.parse(stdout) as { ok?: boolean; error?: string; results?: { ok: boolean; error?: string }[] };
    if (reply.ok === false && reply.error?.startsWith('fenced:') === true) return reply.error;
    const fenced = reply.results?.find((r) => !r.ok && r.error?.startsWith('fenced:') === true);
    return fenced?.error ?? null;
  } catch {
    return null;
  }
}

export function nodeLog(): NodeLog {
  const asked: Asked[] = [];
  let seq = 0;
  let delay: (a: Pick<Asked, 'host' | 'epoch' | 'holder'>) => number = () => 0;
  return {
    asked,
    slowApply: (d) => void (delay = d),
    wrap: (inner) => async (ctx) => {
      const kind = ctx.command === `${SIM_AGENT_COMMAND} apply` ? 'apply' : ctx.command === `${SIM_ROUTER_COMMAND} endpoints` ? 'endpoints' : null;
      if (kind === null) return inner(ctx);
      const a: Asked = {
        host: ctx.host,
        kind,
        ...leaseOf(ctx.stdin),
        arrived: seq++,
        admitted: -1,
        done: -1,
        executed: null,
        arrivedAt: Date.now(),
        doneAt: -1,
      };
      asked.push(a);
      const wait = kind === 'apply' ? delay(a) : 0;
      if (wait > 0) await sleep(wait);
      a.admitted = seq++;
      const out = await inner(ctx);
      const refusal = refusalIn(out.stdout);
      a.executed = refusal === null ? (out.code === 0 ? true : null) : false;
      if (refusal !== null) a.error = refusal;
      a.done = seq++;
      a.doneAt = Date.now();
      return out;
    },
  };
}

/**
 * docs/safety.md#fencing from the nodes' side: a host never executes a
 * request whose epoch is lower than one it has already executed. "Already"
 * is strict: the higher one's answer was ready before the lower one was
 * handed to the node (two requests in flight at once may be decided either
 * way). One line per breach; empty when none.
 */
export function epochBreaches(asked: readonly Asked[]): string[] {
  const out: string[] = [];
  for (const a of asked) {
    if (a.executed !== true) continue;
    const higher = asked.find((b) => b.host === a.host && b.executed === true && b.epoch > a.epoch && b.done >= 0 && b.done < a.admitted);
    if (higher) out.push(`${a.host} executed ${a.kind} at epoch ${a.epoch} (${a.holder}) after ${higher.kind} at epoch ${higher.epoch} (${higher.holder})`);
  }
  return out;
}

/** Per host, the epochs of what it executed, in the order it decided: for a failure message. */
export function epochsByHost(asked: readonly Asked[]): string {
  const hosts = [...new Set(asked.map((a) => a.host))].sort();
  return hosts
    .map((h) => {
      const seen = asked
        .filter((a) => a.host === h)
        .sort((x, y) => x.admitted - y.admitted)
        .map((a) => `${a.kind[0]}${a.epoch}${a.executed === true ? '' : a.executed === false ? '✗' : '?'}`);
      return `${h}: ${seen.join(' ')}`;
    })
    .join('\n');
}

const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
];
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface Reconciler {
  /** The lease holder id this process uses: `host:pid:nonce` (src/git/lease.ts); known once it held the lease. */
  readonly pid: number;
  /** Whether `holder` (a lease's holder id) is this process. */
  is(holder: string): boolean;
  lines: string[];
  /** Waits until a line matches; the whole output in the error when it never does. */
  waitFor(what: RegExp, timeoutMs?: number): Promise<string>;
  /** How many lines match. */
  count(what: RegExp): number;
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, and the exit code (SIGKILL after a long wait). */
  stop(): Promise<number | null>;
}

export interface ReconcilerOptions {
  remote: string;
  workdir: string;
  env: Record<string, string | undefined>;
  /** libfaketime's FAKETIME, e.g. '-1h': this process and its git run on a clock shifted by that much. */
  clock?: string;
  leaseTtl: string;
  schedule?: string;
}

/** `llmgw run` in its own process, as an operator starts it, on its own checkout of the remote. */
export function startReconciler(opts: ReconcilerOptions): Reconciler {
  const env: Record<string, string | undefined> = { ...opts.env };
  if (opts.clock !== undefined) {
    const lib = LIBFAKETIME.find((p) => existsSync(p));
    if (lib === undefined) throw new Error(`libfaketime is not installed (looked for ${LIBFAKETIME.join(', ')}): apt-get install faketime`);
    Object.assign(env, { LD_PRELOAD: lib, FAKETIME: opts.clock, FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_NO_CACHE: '1' });
  }
  const args = [MAIN, 'run', '--schedule', opts.schedule ?? '*/2 * * * * *', '--remote', opts.remote, '--workdir', opts.workdir, '--lease-ttl', opts.leaseTtl];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const take = (d: Buffer) => {
    const text = partial + d.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const prefix = `${hostname()}:${child.pid}:`;
  return {
    pid: child.pid!,
    is: (holder) => holder.startsWith(prefix),
    lines,
    async waitFor(what, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines.find((l) => what.test(l));
        if (hit !== undefined) return hit;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no line matching ${String(what)} from pid ${child.pid}:\n${lines.join('\n')}`);
        await sleep(100);
      }
    },
    count: (what) => lines.filter((l) => what.test(l)).length,
    signal: (sig) => void child.kill(sig),
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

/** Polls until `ok`, generously: the CI machine is loaded. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}
