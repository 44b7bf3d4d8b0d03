// What decides when a tick runs (docs/overview.md, docs/commands.md `llmgw run`): a cron schedule,
// optionally a watcher on the config files, and a tick at start. Ticks never
// overlap. node-cron's own `noOverlap` would drop a trigger that arrives during a
// tick — a config change made mid-tick would then wait for the next cron slot —
// so triggers go through a queue of one: whatever arrives while a tick runs
// coalesces into exactly one follow-up tick.

import { basename } from 'node:path';
import cron from 'node-cron';
import { watch } from 'chokidar';
import { UsageError } from '../errors.js';
import { GENERATED_FILES } from '../store/files.js';

/** What started a tick: the cron slot, a config file, the start, the remote branch moving (poll or push webhook), a router's demand. */
export type TickReason = 'schedule' | 'watch' | 'start' | 'poll' | 'webhook' | 'demand';

export interface LoopOptions {
  /** A node-cron expression (five fields, or six with seconds first). */
  schedule: string;
  /** Files to watch by path (chokidar v5 has no globs). */
  watchFiles?: string[];
  /** Quiet time after the last file event before the tick (default 500 ms). */
  debounceMs?: number;
  /** Tick once right away (default true). */
  tickAtStart?: boolean;
  tick: (reason: TickReason) => Promise<void>;
  log: (line: string) => void;
}

export interface Loop {
  /** Stop triggering, wait for the tick in flight, close the watcher. */
  stop(): Promise<void>;
  /** Ask for a tick now, as a trigger would (coalesced like any other). */
  trigger(reason: TickReason): void;
  /** Resolves once the watcher is watching (at once without one). */
  ready: Promise<void>;
  /** Whether a tick (or an exclusive job) runs now. */
  busy(): boolean;
  /** How many ticks and jobs have started so far: a watcher tells by it that one ran between two of its looks. */
  runs(): number;
  /**
   * Run `job` in a tick's place when nothing runs: the same one-at-a-time rule,
   * so a job between ticks never overlaps one. False (and `job` not run) when
   * something runs already or the loop stopped; triggers arriving meanwhile make a tick after it.
   */
  exclusive(job: () => Promise<void>): Promise<boolean>;
}

/** One line for the log: the first line of the message. */
function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? '';
}

/** A bad cron expression is a usage error before anything starts, not a stack from node-cron. */
export function assertSchedule(schedule: string): void {
  if (!cron.validate(schedule)) {
    throw new UsageError(`--schedule '${schedule}' is not a cron expression (e.g. '*/5 * * * *': every five minutes)`);
  }
}

export function startLoop(opts: LoopOptions): Loop {
  assertSchedule(opts.schedule);
  // Set by stop(), from another callback: typed wide so later checks are not narrowed to `false`.
  let stopped = false as boolean;
  let inFlight: Promise<void> | null = null;
  let pending: TickReason | null = null;

  function run(reason: TickReason): void {
    occupy(async () => {
      try {
        await opts.tick(reason);
      } catch (err) {
        opts.log(`tick (${reason}) failed: ${oneLine(err)}`);
      }
    });
  }

  let started = 0;
  function occupy(body: () => Promise<void>): void {
    started += 1;
    inFlight = body().then(() => {
      inFlight = null;
      if (pending !== null && !stopped) {
        const next = pending;
        pending = null;
        run(next);
      }
    });
  }

  function trigger(reason: TickReason): void {
    if (stopped) return;
    if (inFlight) {
      // The first reason to wait is the one reported: the follow-up is one tick whatever came.
      pending ??= reason;
      return;
    }
    run(reason);
  }

  let debounce: NodeJS.Timeout | null = null;
  const debounceMs = opts.debounceMs ?? 500;
  function onFileEvent(): void {
    if (stopped) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      trigger('watch');
    }, debounceMs);
  }

  const task = cron.schedule(opts.schedule, () => trigger('schedule'), { logger: quietLogger(opts.log) });
  let closeWatcher: () => Promise<void> = () => Promise.resolve();
  const ready = (async () => {
    if (opts.watchFiles && opts.watchFiles.length > 0) {
      const generated = new Set<string>(GENERATED_FILES.map((f) => basename(f)));
      const watcher = watch(opts.watchFiles, {
        ignoreInitial: true,
        // llmgw's own commits touch only generated files; they must never wake it.
        ignored: (path: string) => generated.has(basename(path)),
      });
      closeWatcher = () => watcher.close();
      watcher.on('all', onFileEvent);
      watcher.on('error', (err) => opts.log(`watch: ${oneLine(err)}`));
      await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
      if (stopped) await watcher.close();
    }
  })();

  if (opts.tickAtStart ?? true) trigger('start');

  return {
    ready,
    trigger,
    busy: () => inFlight !== null,
    runs: () => started,
    async exclusive(job) {
      if (stopped || inFlight) return false;
      // Set in the job's catch: typed wide so the check after it is not narrowed to null.
      let failed = null as { err: unknown } | null;
      const body = job().catch((err: unknown) => void (failed = { err }));
      occupy(() => body);
      await body;
      if (failed !== null) throw failed.err;
      return true;
    },
    async stop() {
      stopped = true;
      pending = null;
      if (debounce) clearTimeout(debounce);
      await task.destroy();
      await ready.catch(() => undefined);
      await closeWatcher();
      while (inFlight) await inFlight;
    },
  };
}

function quietLogger(log: (line: string) => void) {
  return {
    info: () => undefined,
    debug: () => undefined,
    warn: (m: string) => log(`schedule: ${m}`),
    error: (m: string | Error) => log(`schedule: ${oneLine(m)}`),
  };
}
