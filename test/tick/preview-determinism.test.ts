// The tick's preview (plan, project, render) is a function of what was observed,
// not of the order a node or a router listed it in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { renderPlanMarkdown } from '../../src/views/plan/render-markdown.js';
import { summarize } from '../../src/status/index.js';
import { renderStatusJson } from '../../src/views/status/index.js';
import { planTick } from '../../src/tick/plan.js';
import { previewTick } from '../../src/tick/preview.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { ROOT } from '../helpers/golden.js';

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
  test(`examples/${example}: the preview of a snapshot with every list shuffled gives byte-identical plan, diff and status`, async () => {
    const dir = join(ROOT, 'examples', example);
    const loaded = await loadConfig(dir, { env: {}, strictEnv: false });
    assert.ok(loaded.ok);
    const snap = JSON.parse(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8')) as Snapshot;
    const now = '2026-11-29T08:00:00Z';
    const render = (s: Snapshot) => {
      const run = previewTick(planTick({ config: loaded.config, snapshot: s, state: emptyState(), now }), { before: null, base: null });
      return renderPlanMarkdown(run.plan, run.diff) + renderStatusJson(summarize(run.planned.fleet, run.plan.unplaceable));
    };
    const expected = render(snap);
    for (const seed of [3, 17]) assert.is(render(deepShuffle(snap, seed)), expected);
  });
}

test.run();
