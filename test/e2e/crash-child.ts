// A reconciler the fault-injection suite kills: one leased tick, as `llmgw
// reconcile` runs it, in its own process, with LLMGW_CRASH_AT (test only,
// src/util/crash-point.ts) naming the moment it dies by SIGKILL.
//
//   node crash-child.js WORKDIR REMOTE CLOCK_OFFSET_MS

import { leasedTick } from '../../src/tick/run.js';
import { cachedTransports } from '../../src/tick/transport-source.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { openConfigRepo } from '../../src/git/config-repo.js';

const [workdir, remote, offset] = process.argv.slice(2) as [string, string, string];
const env = process.env;
const repo = await openConfigRepo({ dir: workdir, remote, branch: 'main', env });
const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: false }));
const result = await leasedTick({
  repo,
  holder: `crash@${process.pid}`,
  transport: (config) => transports.forConfig(config),
  env,
  now: () => new Date(Date.now() + Number(offset)),
  push: true,
  log: (line) => process.stdout.write(line + '\n'),
}).catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }));
await transports.close();
process.stdout.write(`the tick finished: the crash did not happen (${JSON.stringify('error' in result ? result : { held: result.held })})\n`);
