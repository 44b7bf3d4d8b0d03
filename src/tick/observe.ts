// The observe phase (src/tick/README.md): gather the fleet once, stamped with
// one time. That time is the tick's "now" for every pure phase after it, so
// the STATUS.md a tick commits is exactly the render of the committed config,
// observed.json and state.json at observed.json's own `observedAt`.

import { gatherSnapshot, type GatherProgress } from '../gather/gather.js';
import type { Config } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { Transport } from '../types/transport.js';
import type { TickInput } from './plan.js';

export interface ObserveDeps {
  transport: Transport;
  /** The committed snapshot: unreachable nodes keep their last report and since when. */
  previous: Snapshot | null;
  /** state.json as committed. */
  state: State;
  at: Date;
  onProgress?: (p: GatherProgress) => void;
}

export async function observe(config: Config, deps: ObserveDeps): Promise<TickInput> {
  const snapshot = await gatherSnapshot(config, { ...deps, now: () => deps.at });
  return { config, snapshot, state: deps.state, now: snapshot.observedAt };
}
