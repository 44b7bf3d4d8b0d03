// SHIM: the signatures of gather (B1), not yet merged into main, so the tick
// builds meanwhile. Each is
// replaced by its real import, and this file deleted, as the stage lands.

import { NotImplementedError } from '../errors.js';
import type { Config, SshConfig } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { Transport } from '../types/transport.js';

const pending = (what: string): never => {
  throw new NotImplementedError(`${what} is not merged yet`);
};

export function createSshTransport(_ssh: SshConfig, _opts?: { env?: Record<string, string | undefined>; keepAlive?: boolean }): Transport {
  return pending('createSshTransport');
}
export async function gatherSnapshot(_config: Config, _opts: { transport: Transport; previous: Snapshot | null; state: State; now: () => Date; onProgress?: (p: unknown) => void }): Promise<Snapshot> {
  return pending('gatherSnapshot');
}
