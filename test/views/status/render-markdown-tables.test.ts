// STATUS.md's tables, section by section (src/views/status/render-markdown.ts): the
// exact rows an operator reads, which rows stand out when a table folds, and
// what the fold's summary says about the rows it hides.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { barText } from '../../../src/views/status/bar.js';
import type { CapacityRow, FabricRow, HoldingRow, ModelRow } from '../../../src/status/types.js';
import { blankReport, fold, pad, section } from '../../status/blank-report.js';

test('a capacity row shows each bucket of its class, GPUs in other hands included', () => {
  const c: CapacityRow = { class: 'H100', total: 8, used: 2, free: 3, unhealthy: 1, other: 2, unreachable: 0, cordoned: 0 };
  const out = section(renderStatusMarkdown(blankReport({ capacity: [c] })), 'Capacity');
  assert.equal(out.slice(0, 5), [
    '## Capacity',
    '',
    '| GPU class | Usage | Total | Used | Free | Unhealthy | Other | Unreachable | Cordoned |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| H100 | \`${barText(c)}\` | 8 | 2 | 3 | 1 | 2 | 0 | 0 |`,
  ]);
});

test('a capacity row from a report without the Other bucket shows 0 there', () => {
  const c = { class: 'H100', total: 4, used: 4, free: 0, unhealthy: 0, unreachable: 0, cordoned: 0 } as unknown as CapacityRow;
  const out = section(renderStatusMarkdown(blankReport({ capacity: [c] })), 'Capacity');
  assert.is(out[4], `| H100 | \`${barText(c)}\` | 4 | 4 | 0 | 0 | 0 | 0 | 0 |`);
});

const fabric = (i: number, reachable = 2): FabricRow => ({ name: `ib-${pad(i)}`, nodes: 2, reachable, freeWholeNodes: reachable === 2 ? { H100: 1 } : {} });
const fabricLine = (f: FabricRow): string => `| ${f.name} | ${f.nodes} | ${f.reachable} | ${Object.keys(f.freeWholeNodes).length ? 'H100 1' : '—'} |`;
const FABRIC_HEAD = ['| Fabric | Nodes | Reachable | Free whole nodes |', '| --- | ---: | ---: | --- |'];

test('past 20 fabrics, all reachable, the fabric table folds under "N fabrics, every node reachable"', () => {
  const fs = Array.from({ length: 21 }, (_, i) => fabric(i));
  const out = section(renderStatusMarkdown(blankReport({ fabrics: fs })), 'Fabrics');
  assert.equal(out, ['## Fabrics', '', ...fold('21 fabrics, every node reachable', [...FABRIC_HEAD, ...fs.map(fabricLine)]), '']);
});

test('past 20 fabrics, one with a node out of reach shows above the fold, the others fold as "N more fabrics"', () => {
  const fs = [...Array.from({ length: 20 }, (_, i) => fabric(i)), fabric(20, 1)];
  const out = section(renderStatusMarkdown(blankReport({ fabrics: fs })), 'Fabrics');
  assert.equal(out, [
    '## Fabrics',
    '',
    ...FABRIC_HEAD,
    '| ib-20 | 2 | 1 | — |',
    '',
    ...fold('20 more fabrics, every node reachable', [...FABRIC_HEAD, ...fs.slice(0, 20).map(fabricLine)]),
    '',
  ]);
});

/** The head of the Models section of 21 models without replicas. */
const MODELS_21 = ['## Models', '', '21 models, 0 replicas: 0 running, 0 starting, 0 failed.', ''];
const modelRow = (i: number, running = 1): ModelRow => ({ name: `m-${pad(i)}`, desired: 1, running, starting: 0, failed: 0 });

test('past 20 models, all running as desired, the model table folds under "N models, all running as desired"', () => {
  const ms = Array.from({ length: 21 }, (_, i) => modelRow(i));
  const out = section(renderStatusMarkdown(blankReport({ models: ms })), 'Models');
  assert.equal(out.slice(0, 6), [...MODELS_21, '<details><summary>21 models, all running as desired</summary>', '']);
});

test('past 20 models, one short of its replicas shows above the fold, the rest fold as "N more models"', () => {
  const ms = [...Array.from({ length: 20 }, (_, i) => modelRow(i)), modelRow(20, 0)];
  const out = section(renderStatusMarkdown(blankReport({ models: ms })), 'Models');
  assert.equal(out.slice(0, 10), [
    ...MODELS_21,
    '| Model | Desired | Running | Starting | Failed |',
    '| --- | ---: | ---: | ---: | ---: |',
    '| m-20 | 1 | 0 | 0 | 0 |',
    '',
    '<details><summary>20 more models, all running as desired</summary>',
    '',
  ]);
});

test('a rollout under way is a line under the models table, set apart from the next section by a blank line', () => {
  const m: ModelRow = { ...modelRow(0), rollout: { spec: '5f2c9a1e', stage: 'canary', text: 'canary 1 of 4 for spec 5f2c9a1e: starting' } };
  const out = renderStatusMarkdown(blankReport({ models: [m] }));
  assert.equal(section(out, 'Models'), [
    '## Models',
    '',
    '1 model, 0 replicas: 0 running, 0 starting, 0 failed.',
    '',
    '| Model | Desired | Running | Starting | Failed |',
    '| --- | ---: | ---: | ---: | ---: |',
    '| m-00 | 1 | 1 | 0 | 0 |',
    '',
    '- Rollout of m-00: canary 1 of 4 for spec 5f2c9a1e: starting',
    '',
  ]);
  assert.ok(out.includes('starting\n\n## Idle replicas\n'));
});

const FABRICS_21 = Array.from({ length: 21 }, (_, i) => fabric(i));

function holding(model: string, f: string, held: boolean): HoldingRow {
  return { fabric: f, model, weights: `org/${model}`, held, shared: held ? ['lustre-a'] : [], localNodes: [] };
}

test("past 8 fabrics a model's row says in how many fabrics it is held and names up to 20 where it is not", () => {
  const names = FABRICS_21.map((f) => f.name);
  const holdings = [...names.map((f, i) => holding('held-once', f, i === 0)), ...names.map((f) => holding('held-nowhere', f, false))];
  const out = section(renderStatusMarkdown(blankReport({ fabrics: FABRICS_21, holdings })), 'Weights by fabric');
  assert.equal(out, [
    '## Weights by fabric',
    '',
    '| Model | Weights | Fabrics holding | Not held in |',
    '| --- | --- | --- | --- |',
    '| held-nowhere | org/held-nowhere | 0 of 21 | ' + names.slice(0, 20).join(', ') + ', and 1 more |',
    '| held-once | org/held-once | 1 of 21 | ' + names.slice(1).join(', ') + ' |',
    '',
  ]);
});

test('past 20 models in the weights table, those held nowhere show first and the rest fold as "N more models"', () => {
  const models = Array.from({ length: 21 }, (_, i) => `m-${pad(i)}`);
  const holdings = models.map((m, i) => holding(m, 'ib-00', i !== 20));
  const out = section(renderStatusMarkdown(blankReport({ fabrics: [fabric(0)], holdings })), 'Weights by fabric');
  assert.equal(out.slice(0, 9), [
    '## Weights by fabric',
    '',
    '| Model | Weights | ib-00 |',
    '| --- | --- | --- |',
    '| m-20 | org/m-20 | — |',
    '',
    '<details><summary>20 more models</summary>',
    '',
    '| Model | Weights | ib-00 |',
  ]);
  assert.is(out[10], '| m-00 | org/m-00 | shared: lustre-a |');
});

test('past 20 models in the weights table, all held somewhere, the whole table folds as "N models"', () => {
  const models = Array.from({ length: 21 }, (_, i) => `m-${pad(i)}`);
  const holdings = models.map((m) => holding(m, 'ib-00', true));
  const out = section(renderStatusMarkdown(blankReport({ fabrics: [fabric(0)], holdings })), 'Weights by fabric');
  assert.equal(out.slice(0, 3), ['## Weights by fabric', '', '<details><summary>21 models</summary>']);
});

test.run();
