// `npm run soak`: the fault-injection suite at length (docs/operations.md#crash-only).
// Kills a reconciler with SIGKILL at seeded moments — every moment in turn,
// then at random — with seeded delays into git calls, and prints what it
// found. Not part of `npm test` (minutes, not seconds).
//
//   LLMGW_SOAK_KILLS=85 LLMGW_SOAK_SEED=16 npm run soak

import { MOMENTS, faultRun, killsFor, prng, type Moment } from './fault-world.js';

const kills = Number(process.env.LLMGW_SOAK_KILLS ?? 85);
const seed = Number(process.env.LLMGW_SOAK_SEED ?? 16);
const rand = prng(seed);
const moments: Moment[] = Array.from({ length: kills }, (_, i) => (i < MOMENTS.length ? MOMENTS[i]! : MOMENTS[Math.floor(rand() * MOMENTS.length)]!));
const started = Date.now();
const r = await faultRun({ seed, kills: killsFor(moments, seed), log: (l) => process.stderr.write(`  ${l}\n`) });
const byMoment = new Map<string, number>();
for (const m of moments) byMoment.set(m, (byMoment.get(m) ?? 0) + 1);
process.stdout.write(
  [
    `seed ${seed}: ${r.kills} kills tried, ${r.reached} reached their moment, in ${Math.round((Date.now() - started) / 1000)} s`,
    `moments covered (${r.moments.length} of ${MOMENTS.length}): ${[...byMoment].map(([m, n]) => `${m} ${n}`).join(', ')}`,
    `not reached: ${r.notReached.length === 0 ? 'none' : r.notReached.join(', ')}`,
    `duplicates: ${r.duplicates}`,
    `stuck states: ${r.stuck}`,
    `person's commits lost: ${r.lostCommits}`,
    `events undelivered: ${r.undelivered}, sent before commit: ${r.uncommittedSends}, transitions under a second id: ${r.extraIds}`,
    `left by the kills: ${
      Object.entries(r.leftovers)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'nothing'
    }; ticks retried after a kill (a lock younger than git.timeout): ${r.retriedTicks}`,
  ].join('\n') + '\n',
);
const bad = r.duplicates + r.stuck + r.lostCommits + r.undelivered + r.uncommittedSends + r.extraIds;
process.exit(bad === 0 ? 0 : 1);
