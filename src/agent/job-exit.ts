// The end of `agent job` when its engine died of a signal: the job's process
// dies of the same one, as it would had the batch script exec'd the engine
// itself, so Slurm records what really happened.

import { constants } from 'node:os';

export function dieOf(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // A signal whose default is not to end the process: end with a shell's code for it.
  process.exitCode = 128 + constants.signals[signal];
}
