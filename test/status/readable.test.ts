import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { summarize } from '../../src/status/index.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { MAX_FABRIC_COLUMNS } from '../../src/views/status/render-markdown.js';
import type { StorageDecl } from '../../src/types/config.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, routerUp, snapshot, stored, up } from '../fixtures/index.js';

test('a 4,000-node fleet in 20 fabrics gives a STATUS.md of aggregates, not per-node rows', () => {
  const fabrics = Array.from({ length: 20 }, (_, i) => `ib-${String(i).padStart(2, '0')}`);
  const storage: StorageDecl[] = [{ path: '/models', kind: 'local' }];
  const names = Array.from({ length: 4000 }, (_, i) => `n${String(i).padStart(4, '0')}`);
  const models = Array.from({ length: 10 }, (_, i) => model(`m${i}`, { replicas: 200 }));
  const c = config(
    names.map((n, i) => nodeConfig(n, { fabric: fabrics[i % 20], storage, cordon: i % 97 === 0 })),
    { fabrics, routers: [{ name: 'rt', host: 'rt', port: 22 }] },
    models,
  );
  const obs = names.map((n, i) => {
    const r = report(gpus(8, undefined, i % 50 === 0 ? [7] : []), i % 2 ? [replica(`m${i % 10}-${i}`, [0], { startedAt: '2026-11-20T00:00:00Z' })] : [], [
      stored('/models', i % 3 ? ['org/m1'] : []),
    ]);
    return i % 13 === 0 ? down(n, i % 26 === 0 ? null : '2026-11-29T07:58:00Z', r) : up(n, r);
  });
  const f = buildFleet(c, snapshot(obs, [routerUp('rt', '2026-11-01T00:00:00Z')]), emptyState(), NOW);
  const md = renderStatusMarkdown(summarize(f, []));
  const lines = md.split('\n');
  // What a reader sees with every <details> closed.
  const open = md.replace(/<details>.*?<\/details>/gs, '').split('\n');
  assert.ok(open.length < 150, `${open.length} lines open`);
  // Folds are bounded too: past MAX_FOLDED rows a fold says where the rest is.
  assert.ok(md.length < 300_000, `${md.length} bytes`);
  assert.ok(fabrics.length > MAX_FABRIC_COLUMNS);
  assert.ok(lines.includes('| Model | Weights | Fabrics holding | Not held in |'));
  for (const what of ['nodes lost', 'nodes unreachable']) assert.match(md, new RegExp(`^- \\d+ ${what}.*, and \\d+ more:$`, 'm'), what);
  // Every 50th node has GPU 7 broken: one hostlist names them all.
  assert.match(md, /^- \d+ GPUs unhealthy: n\\\[0050,0100,[0-9,]+\\\]:7$/m);
  assert.match(md, /… and \d+ more: `llmgw status --json` and `llmgw console` list every one\./);
});

test.run();
