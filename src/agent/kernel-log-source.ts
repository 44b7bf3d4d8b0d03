// Reading the kernel log for Xids (docs/protocol.md#gpu-faults): `journalctl -k`, else
// `dmesg`, or what `$LLMGW_KERNEL_LOG` names (a file, or a command line run as
// argv, never through a shell: tests and the simulated fleet use it). Bounded in
// time and bytes like nvidia-smi, and run beside it. Where the last report read up
// to is kept in the state directory, so each Xid is reported once.

import { execFile } from 'node:child_process';
import { open, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { writeFileAtomic } from '../util/fs.js';
import { stateDir, type AgentEnv } from './env.js';
import { cleanText } from './quote.js';

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 8 * 1024 * 1024;
/** The first report looks back this far; so does one after the record was lost. */
export const FIRST_LOOK_BACK_MS = 10 * 60_000;
/** However long since the last report, no further back than this: older faults were seen by someone else or no one. */
const MAX_LOOK_BACK_MS = 24 * 3600_000;

type Read = { text: string } | { error: string };

function run(argv: string[], env: AgentEnv): Promise<Read & { missing?: boolean }> {
  const name = argv[0] ?? '';
  return new Promise((resolve) => {
    execFile(name, argv.slice(1), { env, timeout: TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: MAX_BYTES, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve({ text: stdout });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number | null };
      if (e.code === 'ENOENT') return resolve({ error: `${name} not found`, missing: true });
      if (e.killed) return resolve({ error: `${name} gave no answer in ${TIMEOUT_MS / 1000} s` });
      if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve({ text: stdout });
      const last = stderr.trim().split('\n').pop()?.trim() ?? '';
      resolve({ error: `${name} failed (exit ${String(e.code)}${last ? `: ${cleanText(last, 200)}` : ''})` });
    });
  });
}

/** The last MAX_BYTES of a file: the newest lines are what a report wants. */
async function tail(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - MAX_BYTES);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    return buf.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The kernel log's text since about `sinceMs`; the caller filters by each line's own time. */
export async function readKernelLog(env: AgentEnv, sinceMs: number): Promise<Read> {
  const named = env.LLMGW_KERNEL_LOG?.trim();
  if (named) {
    // An absolute path to a file that is not executable is a log file; to nothing, a log nothing was written to yet.
    const kind = isAbsolute(named)
      ? await stat(named).then(
          (s) => (s.isFile() && (s.mode & 0o111) === 0 ? 'file' : 'command'),
          (err: unknown) => ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT' && !/\s/.test(named) ? 'empty' : 'command'),
        )
      : 'command';
    if (kind === 'empty') return { text: '' };
    if (kind === 'file') {
      return tail(named).then(
        (text) => ({ text }),
        (err: unknown) => ({ error: `cannot read ${named}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` }),
      );
    }
    return run(named.split(/\s+/), env);
  }
  const journal = await run(['journalctl', '-k', '-q', '--no-pager', '-o', 'short-iso-precise', `--since=@${Math.floor(sinceMs / 1000)}`], env);
  if ('text' in journal) return journal;
  const dmesg = await run(['dmesg', '--time-format', 'iso'], env);
  if ('text' in dmesg) return dmesg;
  return { error: `${journal.error}; ${dmesg.error}` };
}

function markPath(env: AgentEnv): string {
  return join(stateDir(env), 'kernel-log.json');
}

/** Where this report starts reading (the last report's end, else FIRST_LOOK_BACK_MS ago; never in the future), and the untimed lines it saw. */
export async function readSince(env: AgentEnv, nowMs: number): Promise<{ sinceMs: number; seen: Set<string> }> {
  const kept = await readFile(markPath(env), 'utf8').then(
    (t) => JSON.parse(t) as { readUntil?: unknown; untimed?: unknown },
    (): { readUntil?: unknown; untimed?: unknown } => ({}),
  );
  const until = typeof kept.readUntil === 'string' ? Date.parse(kept.readUntil) : NaN;
  const seen = new Set(Array.isArray(kept.untimed) ? kept.untimed.filter((k): k is string => typeof k === 'string') : []);
  if (!Number.isFinite(until) || until > nowMs) return { sinceMs: nowMs - FIRST_LOOK_BACK_MS, seen };
  return { sinceMs: Math.max(until, nowMs - MAX_LOOK_BACK_MS), seen };
}

export async function markRead(env: AgentEnv, untilMs: number, untimed: string[]): Promise<void> {
  await writeFileAtomic(markPath(env), JSON.stringify({ readUntil: new Date(untilMs).toISOString(), untimed }) + '\n');
}
