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
import { outagesAfter, previousOnThisClock, stateOnThisClock } from './clock.js';
import { adoptIntents, seedState, type StartIntent } from './state.js';

export interface ObserveDeps {
  transport: Transport;
  /** The committed snapshot: unreachable nodes keep their last report and since when. */
  previous: Snapshot | null;
  /** state.json as committed. */
  state: State;
  at: Date;
  onProgress?: (p: GatherProgress) => void;
  /** Told of a time from the repo that lies in this clock's future (clock.ts); default: not told. */
  warn?: (message: string) => void;
  /** The starts a holder recorded before sending them (the lease's write-ahead intents, src/git/lease.ts); default none. */
  intents?: readonly StartIntent[];
}

export async function observe(config: Config, deps: ObserveDeps): Promise<TickInput> {
  const warn = deps.warn ?? (() => undefined);
  // Times the repo holds, read on this tick's clock (clock.ts) before anything is judged by them.
  const previous = previousOnThisClock(deps.previous, deps.at, warn);
  // Records are llmgw's own (docs/safety.md#records-over-reports): seeded from what it committed, before any fresh report is read.
  const state = seedState(stateOnThisClock(deps.state, deps.at, warn), deps.previous);
  const gathered = await gatherSnapshot(config, {
    transport: deps.transport,
    previous,
    state,
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
    now: () => deps.at,
  });
  const snapshot = outagesAfter(previous, gathered);
  return { config, snapshot, state: adoptIntents(state, deps.intents ?? [], snapshot, previous?.observedAt ?? null), now: snapshot.observedAt };
}
