// `llmgw demo [--keep]` (CONTRACT §11): see src/demo/run-demo.ts.

import { parseArgs } from 'node:util';
import type { Io } from '../io.js';
import { runDemo } from '../../demo/run-demo.js';

const HELP = `Usage: llmgw demo [--keep]

A whole fleet on this machine: SSH servers on loopback running the real agent
over fake GPUs and stub engines, a router, a bare git remote seeded with
examples/demo; two reconcile ticks; then the plan, STATUS.md and the repo.
  --keep   keep the fleet up and tick every 10 s until Ctrl-C
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { keep: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  let onSignal: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (onSignal = resolve));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runDemo({ keep: values.keep, out: (t) => io.stdout.write(t), env: io.env, stopped });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
