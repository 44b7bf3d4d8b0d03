// SIGTERM and SIGINT for the commands that tick (docs/commands.md): the first
// asks to stop — the tick in flight finishes, but every git call, in flight or
// later, gets a short grace instead of its full git.timeout, so a remote that
// does not answer cannot hold a stopping daemon (src/git/runner.ts). The
// second stops now: git calls in flight are killed, and the process exits.

export interface StopSignals {
  /** Aborted by the first signal. */
  stopping: AbortSignal;
  /** Aborted by the second. */
  halted: AbortSignal;
  /** Resolves with the first signal. */
  first: Promise<NodeJS.Signals>;
  dispose(): void;
}

const EXIT_CODE: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export function stopSignals(log: (line: string) => void): StopSignals {
  const stopping = new AbortController();
  const halted = new AbortController();
  let resolveFirst: (s: NodeJS.Signals) => void = () => undefined;
  const first = new Promise<NodeJS.Signals>((r) => (resolveFirst = r));
  const on = (s: NodeJS.Signals) => {
    if (!stopping.signal.aborted) {
      stopping.abort();
      resolveFirst(s);
      return;
    }
    log(`${s} again: stopping now`);
    halted.abort();
    // 'exit' kills the process groups of git calls still in flight (src/git/runner.ts).
    process.exit(EXIT_CODE[s] ?? 1);
  };
  process.on('SIGTERM', on);
  process.on('SIGINT', on);
  return {
    stopping: stopping.signal,
    halted: halted.signal,
    first,
    dispose() {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
    },
  };
}
