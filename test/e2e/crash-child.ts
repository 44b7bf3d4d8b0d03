// A reconciler that dies the hard way right after its first `agent apply`
// answered: before it wrote or committed anything. Run by crash.test.ts.

import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { runTick } from '../../src/daemon/tick.js';
import type { Transport } from '../../src/types/transport.js';

const workdir = process.argv[2]!;
const env = process.env;
const repo = await openConfigRepo({ dir: workdir, env });
await runTick({
  repo,
  transport: (config): Transport => {
    const ssh = createSshTransport(config.cluster.ssh, { env });
    return {
      async run(target, command, input) {
        const out = await ssh.run(target, command, input);
        if (command.endsWith(' apply')) process.kill(process.pid, 'SIGKILL');
        return out;
      },
      close: () => ssh.close(),
    };
  },
  env,
  now: () => new Date(),
  push: true,
  log: (line) => process.stdout.write(line + '\n'),
});
process.stdout.write('the tick finished: the crash did not happen\n');
