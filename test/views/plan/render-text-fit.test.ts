// The fit of a plan's models in the formats people read (docs/placement.md#will-it-fit):
// the text plan has one `= fit` line for each model it starts or cannot place,
// and the warning of a model whose size is unknown heads the text plan and the
// PR comment, while JSON keeps it in after.fitWarnings (its `warnings` unchanged).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../../src/status/summarize.js';
import type { Plan } from '../../../src/types/plan.js';
import { planJson } from '../../../src/views/plan/render-json.js';
import { renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { fitSummary, withReadersContext } from '../../../src/views/plan/render-common.js';
import { CONFIG_70B, makeFleet, W70 } from '../../fixtures/fleet.js';

// a1 (A100-40GB) holds the 70B with its config.json; h1 is an H100 80GB; org/ghost is held nowhere and has no weightsBytes.
const after = summarize(
  makeFleet({
    nodes: [
      {
        name: 'a1',
        cls: 'A100',
        product: 'NVIDIA A100-SXM4-40GB',
        memoryMiB: 40960,
        holds: [W70],
        sizes: { [W70]: { bytes: 141_107_000_000, config: CONFIG_70B } },
      },
      { name: 'h1', cls: 'H100', product: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 },
    ],
    models: [
      { name: 'llama-70b', weights: W70, gpus: 4 },
      { name: 'big', weights: W70, gpus: 2, gpuClass: 'A100' },
      { name: 'ghost', weights: 'org/ghost', gpus: 1 },
      { name: 'quiet', weights: 'org/quiet', gpus: 1, weightsBytes: 2 ** 30 },
    ],
  }),
  [],
);
const GHOST =
  "model 'ghost': its size is unknown (no node holds org/ghost), so the plan cannot tell whether it fits: set weightsBytes in models.yaml, or put the weights where a node looks";

const plan: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [
    {
      op: 'start',
      replica: 'llama-70b-0',
      model: 'llama-70b',
      port: 8000,
      placement: [{ node: 'h1', gpus: [0, 1, 2, 3] }],
      weights: 'none',
      reason: '1 of 1 replica missing',
    },
    { op: 'start', replica: 'ghost-0', model: 'ghost', port: 8001, placement: [{ node: 'h1', gpus: [4] }], weights: 'none', reason: '1 of 1 replica missing' },
  ],
  unplaceable: [
    {
      model: 'big',
      missing: 1,
      reason: 'needs 65.7 GiB per GPU for weights + 1 GiB + 20.0 GiB KV for 131072 tokens; NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9',
    },
  ],
};

test('text: one fit line per model started or not placed, in name order; a model it does not touch has none', () => {
  const text = renderPlanText(plan, '', { color: false, after });
  // 4 × A100-40GB: 32.85 + 1 of 36 GiB leave 2.15 GiB, short of a 10 GiB sequence; 4 × H100: 3 sequences of 10 GiB in 37.8 GiB.
  assert.equal(
    text.split('\n').filter((l) => l.startsWith('  = fit')),
    ['  = fit  big: does not fit A100', '  = fit  ghost: size unknown', '  = fit  llama-70b: does not fit A100, fits H100 (3 full-length sequences)'],
  );
  assert.not.ok(text.includes('fit  quiet'));
});

test('text and markdown: the unknown size is a warning at the top; JSON keeps it in after.fitWarnings only', () => {
  assert.ok(renderPlanText(plan, '', { color: false, after }).startsWith(`Warning: ${GHOST}.\n`));
  assert.ok(
    renderPlanMarkdown(plan, '', { after }).startsWith(`### llmgw plan\n\n> **Warning:** model 'ghost': its size is unknown \\(no node holds org/ghost\\)`),
  );
  const json = planJson(plan, { after });
  assert.equal(json.warnings, []);
  assert.equal((json.after as typeof after).fitWarnings, [GHOST]);
});

test('fitSummary: one full-length sequence is said in the singular, a fit of no known sequence length without a count', () => {
  const entry = (fits: boolean, sequences: number | null) => ({ fits, weightsGiBPerGpu: 30, kvGiBPerGpu: 10, maxModelLen: 8192, sequences });
  const ctx = withReadersContext({ after: { ...after, fit: { m: { A100: entry(false, null), H100: entry(true, 1), H200: entry(true, null) } } } });
  assert.is(fitSummary(ctx, 'm'), 'does not fit A100, fits H100 (1 full-length sequence), fits H200');
});

test('a warning of after (a size unknown, a survive: broken) heads the formats once, even when the caller passed it too; JSON adds only survive`s', () => {
  const BROKEN = "model 'llama-70b' does not survive the loss of node h1";
  const withSurvive = { ...after, surviveWarnings: [BROKEN] };
  const ctx = withReadersContext({ after: withSurvive, warnings: [GHOST] });
  assert.equal(ctx.warnings, [GHOST, BROKEN]);
  assert.equal(withReadersContext({ after: withSurvive, warnings: [BROKEN] }).warnings, [BROKEN, GHOST]);
  assert.equal(planJson(plan, { after: withSurvive }).warnings, [BROKEN]);
  assert.equal(planJson(plan, { after: withSurvive, warnings: [BROKEN] }).warnings, [BROKEN]);
});

test.run();
