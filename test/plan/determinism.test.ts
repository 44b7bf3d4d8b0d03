import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { dryRun } from '../../src/plan/dry-run.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderStatusJson, summarize } from '../../src/status/index.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { ROOT, golden } from '../helpers/golden.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { renderPlanJson } from '../../src/plan/render-json.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type FleetIn } from '../fixtures/index.js';

function input(): FleetIn {
  const nodes = Array.from({ length: 24 }, (_, i) => ({
    name: `gpu-${String.fromCharCode(97 + (i % 3))}${String(i).padStart(2, '0')}`,
    fabric: `ib-${String.fromCharCode(97 + (i % 3))}`,
    unhealthy: i % 7 === 0 ? [2] : [],
    cordon: i === 5,
    holds: i % 4 === 0 ? ['org/big'] : [],
  }));
  return {
    nodes,
    replicas: [
      { id: 'small-0', model: 'small', ranks: [{ node: 'gpu-a00', gpus: [0] }] },
      { id: 'old-0', model: 'old', ranks: [{ node: 'gpu-b01', gpus: [0, 1] }] },
      { id: 'mid-3', model: 'mid', ranks: [{ node: 'gpu-c02', gpus: [0, 1, 2, 3] }], spec: 'oldspec' },
    ],
    models: [
      { name: 'small', gpus: 1, replicas: 9 },
      { name: 'mid', gpus: 4, replicas: 5 },
      { name: 'big', gpus: 8, nodes: 2, replicas: 3 },
      { name: 'huge', gpus: 8, nodes: 4, replicas: 3 },
    ],
  };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const GOLDEN = 'test/plan/golden/mixed-24.json';

test('a mixed 24-node fleet plans the golden plan JSON, byte-identical ten times over', () => {
  const first = renderPlanJson(planFleet(makeFleet(input()), emptyState()));
  golden(GOLDEN, first);
  for (let i = 0; i < 10; i++) assert.is(renderPlanJson(planFleet(makeFleet(input()), emptyState())), first);
});

test('shuffling the order of nodes and replicas handed in changes nothing: still the golden plan', () => {
  const expected = readFileSync(join(ROOT, GOLDEN), 'utf8');
  for (let seed = 1; seed <= 5; seed++) {
    const base = input();
    const fleet = makeFleet({ ...base, nodes: shuffled(base.nodes, seed), replicas: shuffled(base.replicas!, seed) });
    // Even a fleet whose node list is out of name order plans the same.
    const scrambled = { ...fleet, nodes: shuffled(fleet.nodes, seed + 100) };
    assert.is(renderPlanJson(planFleet(fleet, emptyState())), expected);
    assert.is(renderPlanJson(planFleet(scrambled, emptyState())), expected);
  }
});

/** Every list a snapshot carries, in another order: nodes, routers, and inside each report. */
function deepShuffle(snap: Snapshot, seed: number): Snapshot {
  const report = <R extends { gpus: unknown[]; replicas: unknown[]; storage: { weights: string[] }[] }>(r: R): R => ({
    ...r,
    gpus: shuffled(r.gpus, seed),
    replicas: shuffled(r.replicas, seed + 1),
    storage: shuffled(r.storage, seed + 2).map((st) => ({ ...st, weights: shuffled(st.weights, seed + 3) })),
  });
  const nodes = snap.nodes.map((n) => (n.reachable ? { ...n, report: report(n.report) } : { ...n, lastReport: n.lastReport && report(n.lastReport) }));
  const routers = snap.routers.map((r) =>
    r.reachable ? { ...r, report: { ...r.report, lastUsed: Object.fromEntries(shuffled(Object.entries(r.report.lastUsed), seed)) } } : r,
  );
  return { ...snap, nodes: shuffled(nodes, seed + 4), routers: shuffled(routers, seed + 5) };
}

for (const example of ['demo', 'large']) {
  test(`examples/${example}: a snapshot with every list shuffled gives byte-identical plan, diff and status`, async () => {
    const dir = join(ROOT, 'examples', example);
    const loaded = await loadConfig(dir, { env: {}, strictEnv: false });
    assert.ok(loaded.ok);
    const snap = JSON.parse(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8')) as Snapshot;
    const now = '2026-11-29T08:00:00Z';
    const render = (s: Snapshot) => {
      const run = dryRun(loaded.config, s, emptyState(), now);
      return renderPlanMarkdown(run.plan, run.diff) + renderStatusJson(summarize(run.fleet, run.plan.unplaceable));
    };
    const expected = render(snap);
    for (const seed of [3, 17]) assert.is(render(deepShuffle(snap, seed)), expected);
  });
}

test.run();
