// The status report of the fleet a tick left, read back from the files the tick
// wrote (.llmgw/observed.json, .llmgw/state.json) and the config beside them —
// what `llmgw status --observed .llmgw/observed.json` computes. The metrics use
// it only for a tick whose result does not carry its own status report.

import { join } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { OBSERVED_FILE, readSnapshotFile, readState } from '../config/repo-files.js';
import { buildFleet } from '../fleet/index.js';
import { planFleet } from '../plan/plan-fleet.js';
import { summarize, type StatusReport } from '../status/index.js';

/** null when there is no valid config or no snapshot to read: the metrics then keep the last fleet they saw. */
export async function statusFromRepo(dir: string, env: Record<string, string | undefined>, now: Date): Promise<StatusReport | null> {
  const loaded = await loadConfig(dir, { env, strictEnv: false });
  if (!loaded.ok) return null;
  const snapshot = await readSnapshotFile(join(dir, OBSERVED_FILE)).catch(() => null);
  if (snapshot === null) return null;
  const state = await readState(dir);
  const fleet = buildFleet(loaded.config, snapshot, state, now.toISOString());
  return summarize(fleet, planFleet(fleet, state).unplaceable);
}
