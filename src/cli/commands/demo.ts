// `llmgw demo [--keep]` (docs/overview.md): see src/demo/run-demo.ts.

import { parseArgs } from 'node:util';
import type { Io } from '../io.js';
import { withoutRepoOption } from '../repo-options.js';
import { runDemo } from '../../demo/run-demo.js';

const HELP = `Usage: llmgw demo [--keep]

A whole fleet on this machine: SSH servers on loopback running the real agent
over fake GPUs and stub engines, a router, a bare git remote seeded with
examples/demo; two reconcile ticks; then the plan, STATUS.md and the repo.
  --keep   keep the fleet up and tick every 10 s until Ctrl-C
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: withoutRepoOption(argv),
    options: { keep: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let signals = 0;
  // Not `once`: a second Ctrl-C must not kill the process half-way through
  // stopping the engines, which would leave them running on loopback.
  const onSignal = (): void => {
    if (signals++ > 0) io.stderr.write('llmgw demo: stopping the engines, SSH servers and router; one moment\n');
    resolveStopped();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runDemo({ keep: values.keep, out: (t) => io.stdout.write(t), env: io.env, stopped });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
