// npm run bench:liveness — how fast a hung replica is taken out and replaced, and
// how often a slow but progressing one is taken out by mistake
// (docs/operations.md#ejection, docs/placement.md#stalled-and-ejected-replicas),
// on the simulated fleet with the real router, the real agent and stub engines:
//
//   stall      3 replicas under a steady load of streams; one hangs mid-stream
//              (the stub's stallAfterTokens: /health stays 200, no token comes).
//              Time from the hang to the router's ejection (polled every 250 ms), and
//              to the replacement: a new replica running and the hung one
//              stopped. Once with the built-in liveness settings (targets:
//              eject <= 65 s, replace <= 3 min) and once shortened.
//   false      --minutes (default 5) of saturating load that always progresses,
//              at the built-in settings: one replica in --slow-prefill (a chunk
//              every 54 s, just under stallAfter's 60 s), two with a prefill
//              queue (one slot, 1.5 s a prompt) and many streams each. Every
//              ejection the router reports and every replacement a tick plans
//              is a false one (target 0).
//
// Ticks run back to back with a 2 s breath, as `llmgw run` reacts to a router's
// stalled ejection within its 2 s demand poll. Figures are wall times on
// whatever machine runs it: a loaded one adds its delays to both.
//
//   node dist/bench/liveness.js [--minutes 5] [--skip defaults,short,false]

import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isStuckReason } from '../src/fleet/liveness.js';
import type { RouterEjection } from '../src/types/snapshot.js';
import { fmt, sleep, table } from './bench-util.js';
import { startDrainWorld, type DrainWorld } from './drain-world.js';

const SHORT = '{ stallAfter: 5s, ejectFor: 20s, replaceAfter: 5s }';
const models = (liveness: string | null) =>
  `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: 3, routing: least-inflight${liveness ? `, liveness: ${liveness}` : ''} }\n`;
const words = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`).join(' ');

async function stub(endpoint: string, knobs: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${endpoint}/stub/config`, { method: 'PUT', body: JSON.stringify(knobs) });
  if (res.status !== 200) throw new Error(`stub config ${endpoint}: HTTP ${res.status}`);
}

async function running(w: DrainWorld): Promise<{ id: string; endpoint: string }[]> {
  return (await w.replicas()).filter((r) => r.state === 'running' && r.endpoint).map((r) => ({ id: r.id, endpoint: r.endpoint! }));
}

/** Keeps `n` streams open through the router until stop(): as one ends, the next starts. Counts how they ended (those stop() cuts are not counted). */
function load(w: DrainWorld, n: number): { stop(): Promise<{ whole: number; cut: number }> } {
  const halt = new AbortController();
  const counts = { whole: 0, cut: 0 };
  const stopped = (): boolean => halt.signal.aborted;
  const one = async (i: number): Promise<void> => {
    while (!stopped()) {
      try {
        const res = await fetch(`http://127.0.0.1:${w.world.routerPort}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: `load ${i}` }] }),
          signal: halt.signal,
        });
        const body = await res.text();
        if (res.status === 200 && body.includes('data: [DONE]')) counts.whole++;
        else counts.cut++;
      } catch {
        if (!stopped()) counts.cut++;
      }
    }
  };
  const all = Promise.all(Array.from({ length: n }, (_, i) => one(i)));
  return {
    async stop() {
      halt.abort();
      await all;
      return counts;
    },
  };
}

/** Ticks with a 2 s breath until stop(); what each tick planned is handed to `onTick`. */
function ticking(w: DrainWorld, onTick: (stops: { replica: string; reason: string }[]) => void): { stop(): Promise<number> } {
  const run = { on: true };
  let ticks = 0;
  const loop = (async () => {
    while (run.on) {
      const r = await w.tick();
      ticks++;
      onTick((r.plan?.actions ?? []).flatMap((a) => (a.op === 'stop' ? [{ replica: a.replica, reason: a.reason }] : [])));
      await sleep(2_000);
    }
  })();
  return {
    async stop() {
      run.on = false;
      await loop;
      return ticks;
    },
  };
}

interface StallRow {
  settings: string;
  ejectS: number;
  replaceS: number;
  fromEjectS: number;
  reason: string;
  ticks: number;
}

async function stallRun(settings: string, liveness: string | null, limitMs: number): Promise<StallRow> {
  const w = await startDrainWorld(models(liveness));
  try {
    await settle(w);
    const three = await running(w);
    for (const r of three) await stub(r.endpoint, { answer: words(40), tokenDelayMs: 100 });
    const traffic = load(w, 9);
    await sleep(3_000);
    const hung = three[0]!;
    await stub(hung.endpoint, { stallAfterTokens: 0 });
    const t0 = Date.now();
    const p0 = performance.now();
    let ejection: RouterEjection | undefined;
    let reason = '';
    const ticks = ticking(w, (stops) => {
      const s = stops.find((x) => x.replica === hung.id);
      if (s && reason === '') reason = s.reason.replace(/ since .*/, '');
    });
    let replacedMs = NaN;
    // When the router is first seen to list it: an ejection's `since` is when the replica went quiet (the hang), not when it was ejected.
    let ejectedMs = NaN;
    while (performance.now() - p0 < limitMs) {
      if (ejection === undefined) {
        ejection = (await w.usage()).ejected?.[hung.id];
        if (ejection !== undefined) ejectedMs = Date.now();
      }
      const now = await running(w);
      if (!now.some((r) => r.id === hung.id) && now.length === 3) {
        replacedMs = Date.now();
        break;
      }
      await sleep(250);
    }
    const n = await ticks.stop();
    await traffic.stop();
    return {
      settings,
      ejectS: (ejectedMs - t0) / 1000,
      replaceS: (replacedMs - t0) / 1000,
      fromEjectS: (replacedMs - ejectedMs) / 1000,
      reason: reason || 'not replaced',
      ticks: n,
    };
  } finally {
    await w.close();
  }
}

async function settle(w: DrainWorld): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const r = await w.tick();
    const moving = r.report?.replicas.some((x) => x.state === 'starting' || x.state === 'draining') ?? true;
    if (r.plan && r.plan.actions.length === 0 && !moving) return;
    await sleep(300);
  }
  throw new Error('the fleet did not settle in 60 ticks');
}

interface FalseRow {
  minutes: number;
  ejections: number;
  replacements: number;
  whole: number;
  cut: number;
  ticks: number;
}

async function falseRun(minutes: number): Promise<FalseRow> {
  const w = await startDrainWorld(models(null));
  try {
    await settle(w);
    const [slow, ...queued] = await running(w);
    // --slow-prefill's own default: a chunk every 54 s, against stallAfter's 60 s.
    await stub(slow!.endpoint, { answer: words(3), slowPrefillMs: 54_000 });
    for (const r of queued) await stub(r.endpoint, { answer: words(60), tokenDelayMs: 50, cache: { baseMs: 1_500, slots: 1 } });
    const seen = new Set<string>();
    let replacements = 0;
    const ticks = ticking(w, (stops) => (replacements += stops.filter((s) => isStuckReason(s.reason)).length));
    const traffic = load(w, 48);
    const end = performance.now() + minutes * 60_000;
    while (performance.now() < end) {
      for (const [id, e] of Object.entries((await w.usage()).ejected ?? {})) seen.add(`${id} ${e.since}`);
      await sleep(250);
    }
    const counts = await traffic.stop();
    return { minutes, ejections: seen.size, replacements, ...counts, ticks: await ticks.stop() };
  } finally {
    await w.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '5' }, skip: { type: 'string', default: '' } } });
  const minutes = Number(values.minutes);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error('--minutes: a number of minutes > 0');
  const skip = new Set(values.skip.split(',').filter(Boolean));
  console.log(`bench:liveness — ${new Date().toISOString()}, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
  const stalls: StallRow[] = [];
  if (!skip.has('short')) stalls.push(await stallRun(`short ${SHORT}`, SHORT, 3 * 60_000));
  if (!skip.has('defaults')) stalls.push(await stallRun('defaults (60s, 30s, 2m)', null, 8 * 60_000));
  if (stalls.length > 0) {
    console.log('\nA replica hangs mid-stream (times from the hang):');
    console.log(
      table(
        [
          ['settings', 'eject', 'replaced', 'eject->replaced', 'replaced as', 'ticks'],
          ...stalls.map((r) => [r.settings, `${fmt(r.ejectS, 1)} s`, `${fmt(r.replaceS, 1)} s`, `${fmt(r.fromEjectS, 1)} s`, r.reason, String(r.ticks)]),
        ],
        1,
      ),
    );
    console.log('targets with defaults: eject <= 65 s, replace <= 180 s');
  }
  if (!skip.has('false')) {
    const f = await falseRun(minutes);
    console.log(`\nSaturating but progressing load, built-in settings, ${f.minutes} min:`);
    console.log(
      table(
        [
          ['false ejections', 'false replacements', 'streams whole', 'streams cut', 'ticks'],
          [String(f.ejections), String(f.replacements), String(f.whole), String(f.cut), String(f.ticks)],
        ],
        0,
      ),
    );
    console.log('target: 0 false ejections, 0 false replacements');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
