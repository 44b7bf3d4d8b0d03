// Fencing (docs/protocol.md#fencing): an `agent apply` request carries the
// reconciler's lease epoch, and the agent refuses one lower than the highest it
// has seen. A reconciler that lost its lease (a pause, a clock gone wrong) may
// still be mid-apply when the next holder starts; the node is where the two
// meet, so the node is what must say no to the stale one.
//
// The highest epoch lives in the state directory as one marker file per epoch
// seen, `fence/epoch-<N>.json`, rather than one file rewritten in place: two
// applies racing (that is the case fencing exists for) could each read M and
// then write, and the lower write landing last would move the epoch back. A
// marker is only ever added, so the highest can only grow; after adding its own,
// a request reads the markers again and is refused if a higher one appeared
// meanwhile. Markers below the highest are pruned, so the directory stays small.
// The marker's name is the record: creating a name is atomic, and a crash that
// leaves it empty still fences (its holder and time inside are for people).

import { mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lease } from '../types/snapshot.js';
import { stateDir, type AgentEnv } from './env.js';

const MARKER = /^epoch-(\d{1,16})\.json$/;

export function fenceDir(env: AgentEnv): string {
  return join(stateDir(env), 'fence');
}

/** Every epoch this agent has a marker of, highest first. */
async function seenEpochs(env: AgentEnv): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(fenceDir(env));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .flatMap((n) => {
      const m = MARKER.exec(n);
      return m ? [Number(m[1])] : [];
    })
    .sort((a, b) => b - a);
}

/** The highest epoch seen; 0 when none was (a node that never saw a lease accepts requests without one). */
export async function highestEpoch(env: AgentEnv): Promise<number> {
  return (await seenEpochs(env))[0] ?? 0;
}

/** The message of a fenced request: docs/protocol.md names its exact form. */
export function fencedError(epoch: number, highest: number): string {
  return `fenced: epoch ${epoch} < ${highest}`;
}

/**
 * Admit a request holding `lease` (absent: epoch 0), or say why not.
 * A higher epoch is recorded before the request acts, so a crash right after
 * still fences the old holder.
 */
export type Admission = { ok: true } | { ok: false; error: string; fenced?: { epoch: number; highest: number } };

function fenced(epoch: number, highest: number): Admission {
  return { ok: false, error: fencedError(epoch, highest), fenced: { epoch, highest } };
}

export async function admit(env: AgentEnv, lease: Lease | undefined, now: Date): Promise<Admission> {
  const epoch = lease?.epoch ?? 0;
  const before = await highestEpoch(env);
  if (epoch < before) return fenced(epoch, before);
  if (epoch === before) return { ok: true };
  await mkdir(fenceDir(env), { recursive: true });
  await writeFile(join(fenceDir(env), `epoch-${epoch}.json`), JSON.stringify({ epoch, holder: lease?.holder ?? '', at: now.toISOString() }) + '\n', {
    flag: 'wx',
  }).catch((err: unknown) => {
    // The same epoch recorded by a request racing this one: recorded all the same.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  const after = await seenEpochs(env);
  const highest = after[0] ?? epoch;
  if (epoch < highest) return fenced(epoch, highest);
  // Only markers below the highest go, so a reader racing this never sees the highest shrink.
  await Promise.all(after.filter((e) => e < highest).map((e) => unlink(join(fenceDir(env), `epoch-${e}.json`)).catch(() => undefined)));
  return { ok: true };
}
