// Small helpers shared by the router benchmarks: process CPU and memory from
// /proc, percentiles, and a plain table.

import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import net from 'node:net';

export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user+system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

export function sortedOf(parts: ArrayLike<number>[]): Float64Array {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all.sort();
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function fmt(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '-';
}

/** Columns padded; the first `left` columns left-aligned, the rest right-aligned. */
export function table(rows: string[][], left = 2): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

export function which(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether something accepts connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** GNU time, when installed: it gives a child's CPU time, which a shared machine's neighbours do not inflate as they do the wall clock. */
const GNU_TIME = '/usr/bin/time';

export interface WholeRun {
  /** Wall time of the whole process, Node's start included (ms). */
  wall: number;
  /** Its user+system CPU (ms); NaN without GNU time. */
  cpu: number;
}

/**
 * One run of `node ARGV` as a user runs it, a fresh process; stdout is thrown
 * away (a 20,000-node plan prints megabytes), stderr is kept for the error.
 */
export function wholeProcess(argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): WholeRun {
  const timed = existsSync(GNU_TIME);
  const [cmd, args] = timed ? [GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...argv]] : [process.execPath, argv];
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...process.env, NO_COLOR: '1', ...opts.env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = performance.now() - t;
  if (r.status !== 0 && r.status !== 2) throw new Error(`node ${argv.join(' ')} exited ${String(r.status)}: ${r.stderr}`);
  const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(r.stderr);
  return { wall, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN };
}
