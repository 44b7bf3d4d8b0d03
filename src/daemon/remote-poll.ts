// `llmgw run --poll`: a tick out of schedule when the remote branch moved
// (docs/operations.md#which-trigger-sees-what). Every interval the remote's tip
// is read with `git ls-remote` and compared with the last one seen. What a tick
// fetched or pushed is seen by then (the tracking ref, read after every tick), so
// llmgw's own push never counts as a move; a reading taken while a tick ran is
// dropped, since that tick's push may be in it.

import type { BranchTips } from '../git/branch-tip.js';
import { every } from './every.js';

/** What the poll needs of the loop: whether a tick runs, how many have, and how to ask for one. */
export interface PollLoop {
  busy(): boolean;
  runs(): number;
  trigger(reason: 'poll'): void;
}

export interface RemotePollOptions {
  tips: BranchTips;
  intervalMs: number;
  loop: PollLoop;
  log: (line: string) => void;
}

export interface RemotePoll {
  /** One look (the timer's; tests call it directly). Resolves with whether it asked for a tick. */
  step(): Promise<boolean>;
  stop(): Promise<void>;
}

/** The poll's memory, apart from its timer: one look at a time, decided from the tips it is given. */
export function remotePoll(opts: Omit<RemotePollOptions, 'intervalMs'>): RemotePoll['step'] {
  let seen: string | null = null;
  let tracked: string | null = null;
  let runsSeen = -1;
  // The remote failed last time: say it once, not every interval.
  let failing = false;
  return async () => {
    const { loop, tips } = opts;
    if (loop.busy()) return false;
    const runs = loop.runs();
    try {
      if (runs !== runsSeen) {
        // A tick ran since the last look: what it fetched or pushed is known, not a move.
        const now = await tips.tracked();
        if (now !== tracked || runsSeen < 0) [tracked, seen] = [now, now ?? seen];
        runsSeen = runs;
      }
      const remote = await tips.remote();
      if (failing) opts.log(`poll: ${tips.where} answers again`);
      failing = false;
      // A tick began while ls-remote ran: its own push may be in this reading; the next look decides.
      if (loop.busy() || loop.runs() !== runs) return false;
      if (remote === null || remote === seen) return false;
      opts.log(`poll: ${tips.where} moved to ${remote.slice(0, 12)}${seen === null ? '' : ` (was ${seen.slice(0, 12)})`}: ticking`);
      seen = remote;
      loop.trigger('poll');
      return true;
    } catch (err) {
      if (!failing) opts.log(`poll: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`);
      failing = true;
      return false;
    }
  };
}

export function startRemotePoll(opts: RemotePollOptions): RemotePoll {
  return every(opts.intervalMs, remotePoll(opts));
}
