// `npm run bench:gather`: llmgw's gather against parallel-ssh (Debian's pssh,
// one OpenSSH client process per host) on the same simulated servers, at the
// same concurrency, in the same run. See bench/README.md.
//
//   node dist/bench/gather.js [SIZES] [CONCURRENCY]     default: 100,1000,10000 32
//
// parallel-ssh runs up to 1,000 hosts (one OpenSSH process per host); beyond,
// its figures are extrapolated linearly from its 1,000 row and marked so.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sshNativeCrypto } from '../src/gather/ssh-connect.js';
import { generateSimKey } from '../src/sim/keys.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sizes = (positional[0] ?? '100,1000,10000').split(',').map(Number);
const concurrency = Number(positional[1] ?? 32);
/** --no-native: hide ssh2's optional native crypto binding in every process, as on a machine that could not build it. */
const noNative = process.argv.includes('--no-native');
const TARGETS = { wall: 2, cpu: 5, warmMs: 500, rssMB: 300 };
/** docs/testing.md: at 10,000 nodes, cold under 20 s, warm under 3 s, the reconciler under 1 GiB. */
const TARGETS_10K = { coldMs: 20_000, warmMs: 3_000, rssMB: 1024 };
/** The largest fleet parallel-ssh is run against; past it, its row is extrapolated. */
const PSSH_MAX = 1000;

interface Measure {
  wallMs: number;
  cpuMs: number;
  maxRssMB: number;
  ok: number;
  /** CPU the simulated servers spent meanwhile (not the client's; shown for context). */
  serverCpuMs?: number;
}

/** user+system CPU ms of a process so far (Linux /proc; 100 ticks a second), or NaN elsewhere. */
function cpuOf(pid: number | undefined): number {
  try {
    const fields =
      readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function withServerCpu(children: ChildProcess[], measure: () => Measure): Measure {
  const cpu = () => children.reduce((sum, c) => sum + cpuOf(c.pid), 0);
  const before = cpu();
  const m = measure();
  return { ...m, serverCpuMs: cpu() - before };
}

/**
 * Run node with the open-file limit raised toward the hard limit: a thousand kept
 * connections need about a thousand descriptors on each side, more than the
 * common soft limit of 1024.
 */
function nodeArgs(script: string, args: string[], flags: string[] = []): [string, string[]] {
  const raise = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"';
  const hide = noNative ? ['--import', join(here, 'no-native.js')] : [];
  return ['sh', ['-c', raise, 'sh', process.execPath, ...flags, ...hide, join(here, script), ...args]];
}

function which(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** parallel-ssh, installed with apt-get when missing and we are root; otherwise say how. */
function ensurePssh(): boolean {
  if (which('parallel-ssh')) return true;
  if (process.getuid?.() === 0 && which('apt-get')) {
    console.log('parallel-ssh is missing: installing Debian package pssh (apt-get) …');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'pssh', 'openssh-client'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (which('parallel-ssh')) return true;
  }
  console.log('parallel-ssh not found: install it with `sudo apt-get install pssh` (Debian/Ubuntu) to compare; measuring llmgw alone.');
  return false;
}

/** Hosts per simulated-fleet process: a listening socket and a kept connection each, well under the 20,000-descriptor limit. */
const HOSTS_PER_PROCESS = 2500;

interface BenchFleet {
  children: ChildProcess[];
  file: string;
  hosts: { host: string; port: number }[];
  user: string;
  knownHostsPath: string;
  identityFile: string;
}

/** One simulated-fleet process serving hosts first … first+n-1 (its own addresses), accepting the shared client key. */
async function startFleetPart(
  n: number,
  first: number,
  dir: string,
  keyFile: string,
): Promise<{ child: ChildProcess; info: Omit<BenchFleet, 'children' | 'file'> }> {
  const child = spawn(...nodeArgs('bench-fleet.js', [String(n), dir, String(first), keyFile]), { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`the simulated fleet exited (${String(code)})`)));
  });
  return { child, info: JSON.parse(line) as Omit<BenchFleet, 'children' | 'file'> };
}

/** The simulated fleet, over as many processes as its size needs; one known_hosts and one client key for all of it. */
async function startFleet(n: number, dir: string): Promise<BenchFleet> {
  const keyFile = join(dir, 'client-key.json');
  writeFileSync(keyFile, JSON.stringify(generateSimKey('llmgw-bench-client')));
  const parts = [];
  for (let first = 0; first < n; first += HOSTS_PER_PROCESS) {
    const sub = join(dir, `fleet-${first}`);
    mkdirSync(sub);
    parts.push(await startFleetPart(Math.min(HOSTS_PER_PROCESS, n - first), first, sub, keyFile));
  }
  const knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, parts.map((p) => readFileSync(p.info.knownHostsPath, 'utf8')).join(''));
  const info = { hosts: parts.flatMap((p) => p.info.hosts), user: parts[0]!.info.user, knownHostsPath, identityFile: parts[0]!.info.identityFile };
  const file = join(dir, 'fleet.json');
  writeFileSync(file, JSON.stringify(info));
  return { children: parts.map((p) => p.child), file, ...info };
}

/** LLMGW_BENCH_GATHER_PROF=DIR: a CPU profile of each measured llmgw gather process, written to DIR. */
const clientProf = process.env['LLMGW_BENCH_GATHER_PROF'];

function llmgw(file: string, n: number, mode: 'cold' | 'warm'): Measure {
  const flags = clientProf ? ['--cpu-prof', `--cpu-prof-dir=${clientProf}`] : [];
  const r = spawnSync(...nodeArgs('gather-client.js', [file, String(n), mode, String(concurrency)], flags), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gather-client failed: ${r.stderr}`);
  const m = JSON.parse(r.stdout) as { wallMs: number; cpuMs: number; maxRssMB: number; reachable: number; firstError: string | null };
  if (m.firstError) console.log(`  llmgw ${mode} ${n}: first error: ${m.firstError}`);
  return { wallMs: m.wallMs, cpuMs: m.cpuMs, maxRssMB: m.maxRssMB, ok: m.reachable };
}

/** parallel-ssh's wall time, CPU of it and every ssh it forked, and peak RSS, from GNU time. */
function pssh(fleet: BenchFleet, n: number, dir: string): Measure {
  const hostsFile = join(dir, `hosts-${n}`);
  writeFileSync(
    hostsFile,
    fleet.hosts
      .slice(0, n)
      .map((h) => `${fleet.user}@${h.host}:${h.port}`)
      .join('\n') + '\n',
  );
  const out = join(dir, `pssh-out-${n}`);
  const request = JSON.stringify({ version: 1, node: 'x', storage: [{ path: '/models', kind: 'local' }], weights: ['meta-llama/Llama-3.1-70B-Instruct'] });
  const args = [
    '-f',
    '%e %U %S %M',
    'parallel-ssh',
    '-h',
    hostsFile,
    '-p',
    String(concurrency),
    '-t',
    '60',
    '-o',
    out,
    '-I',
    '-O',
    `UserKnownHostsFile=${fleet.knownHostsPath}`,
    '-O',
    'StrictHostKeyChecking=yes',
    '-O',
    'BatchMode=yes',
    '-O',
    'IdentitiesOnly=yes',
    '-O',
    'LogLevel=ERROR',
    '-X',
    '-F',
    '-X',
    '/dev/null',
    '-X',
    '-i',
    '-X',
    fleet.identityFile,
    'llmgw agent report',
  ];
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', args, { input: request, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const last = r.stderr.trim().split('\n').pop() ?? '';
  const [, user = NaN, sys = NaN, rssKB = NaN] = last.split(' ').map(Number);
  const ok = (r.stdout.match(/\[SUCCESS\]/g) ?? []).length;
  if (ok < n) console.log(`  parallel-ssh ${n}: ${n - ok} failed; e.g. ${r.stdout.split('\n').find((l) => l.includes('[FAILURE]')) ?? r.stderr.slice(0, 200)}`);
  return { wallMs, cpuMs: (user + sys) * 1000, maxRssMB: rssKB / 1024, ok };
}

const fmt = (ms: number) => (ms / 1000).toFixed(2) + ' s';
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(1) + '×' : '-');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-'));
  const havePssh = ensurePssh();
  const max = Math.max(...sizes);
  console.log(
    `gather benchmark: ${sizes.join(', ')} simulated nodes (ssh2 servers in separate processes, up to ${HOSTS_PER_PROCESS} hosts each), concurrency ${concurrency}`,
  );
  const native = !noNative && sshNativeCrypto();
  console.log(
    `ssh2 native crypto binding: ${native ? 'built (aes128-gcm@openssh.com in it)' : `${noNative ? 'hidden (--no-native)' : 'not built'}: Node's own crypto, aes128-ctr`}\n`,
  );
  const fleet = await startFleet(max, dir);
  const rows: string[][] = [['nodes', 'tool', 'wall', 'client CPU', 'peak RSS', 'answered', 'server CPU']];
  const server = (m: Measure) => (m.serverCpuMs === undefined || Number.isNaN(m.serverCpuMs) ? '' : fmt(m.serverCpuMs));
  const checks: string[] = [];
  const checks10k: string[] = [];
  const psshAt = new Map<number, Measure>();
  try {
    for (const n of sizes) {
      const cold = withServerCpu(fleet.children, () => llmgw(fleet.file, n, 'cold'));
      // Its servers' CPU is not shown: the warm client first opens its connections with a cold gather.
      const warm = llmgw(fleet.file, n, 'warm');
      rows.push([String(n), 'llmgw cold', fmt(cold.wallMs), fmt(cold.cpuMs), cold.maxRssMB.toFixed(0) + ' MB', `${cold.ok}/${n}`, server(cold)]);
      rows.push([String(n), 'llmgw warm', fmt(warm.wallMs), fmt(warm.cpuMs), warm.maxRssMB.toFixed(0) + ' MB', `${warm.ok}/${n}`, '']);
      if (havePssh && n <= PSSH_MAX) {
        const p = withServerCpu(fleet.children, () => pssh(fleet, n, dir));
        psshAt.set(n, p);
        rows.push([String(n), 'parallel-ssh', fmt(p.wallMs), fmt(p.cpuMs), p.maxRssMB.toFixed(0) + ' MB', `${p.ok}/${n}`, server(p)]);
        rows.push([String(n), 'ratio', `${ratio(p.wallMs, cold.wallMs)} faster`, `${ratio(p.cpuMs, cold.cpuMs)} less`, '', '', '']);
        if (n === 1000) {
          checks.push(
            `cold wall ≥ ${TARGETS.wall}× faster than parallel-ssh: ${ratio(p.wallMs, cold.wallMs)} ${p.wallMs / cold.wallMs >= TARGETS.wall ? 'ok' : 'MISSED'}`,
          );
          checks.push(`cold client CPU ≥ ${TARGETS.cpu}× less: ${ratio(p.cpuMs, cold.cpuMs)} ${p.cpuMs / cold.cpuMs >= TARGETS.cpu ? 'ok' : 'MISSED'}`);
        }
      } else if (psshAt.has(PSSH_MAX)) {
        const base = psshAt.get(PSSH_MAX)!;
        const k = n / PSSH_MAX;
        rows.push([String(n), 'parallel-ssh (extrapolated)', fmt(base.wallMs * k), fmt(base.cpuMs * k), '', '', '']);
        rows.push([String(n), 'ratio', `${ratio(base.wallMs * k, cold.wallMs)} faster`, `${ratio(base.cpuMs * k, cold.cpuMs)} less`, '', '', '']);
      }
      if (n === 1000) {
        checks.push(`warm < ${TARGETS.warmMs} ms: ${warm.wallMs.toFixed(0)} ms ${warm.wallMs < TARGETS.warmMs ? 'ok' : 'MISSED'}`);
        const rss = Math.max(cold.maxRssMB, warm.maxRssMB);
        checks.push(`memory < ${TARGETS.rssMB} MB: ${rss.toFixed(0)} MB ${rss < TARGETS.rssMB ? 'ok' : 'MISSED'}`);
      }
      if (n === 10_000) {
        const rss = Math.max(cold.maxRssMB, warm.maxRssMB);
        checks10k.push(
          `cold < ${TARGETS_10K.coldMs / 1000} s: ${fmt(cold.wallMs)} ${cold.wallMs < TARGETS_10K.coldMs && cold.ok === n ? 'ok' : 'MISSED'}`,
          `warm < ${TARGETS_10K.warmMs / 1000} s: ${fmt(warm.wallMs)} ${warm.wallMs < TARGETS_10K.warmMs && warm.ok === n ? 'ok' : 'MISSED'}`,
          `reconciler RSS < 1 GiB: ${rss.toFixed(0)} MB ${rss < TARGETS_10K.rssMB ? 'ok' : 'MISSED'}`,
        );
      }
    }
  } finally {
    for (const c of fleet.children) c.stdin!.end();
    await Promise.all(fleet.children.map((c) => new Promise((r) => c.once('exit', r))));
    rmSync(dir, { recursive: true, force: true });
  }
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '));
  if (checks.length) console.log('\ntargets at 1000 nodes:\n  ' + checks.join('\n  '));
  if (checks10k.length) console.log('\ntargets at 10,000 nodes:\n  ' + checks10k.join('\n  '));
  console.log(
    '\nclient CPU: llmgw = process.cpuUsage() around the gather in its own process; parallel-ssh = user+sys of it and every ssh it forked (GNU time).',
  );
}

await main();
