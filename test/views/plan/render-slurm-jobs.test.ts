// A jobs-mode plan lists the Slurm jobs it submits and cancels by name
// (docs/slurm.md#jobs-mode-mode-jobs), in every format; a plan without them
// (no `slurm:`, observe mode) reads exactly as before.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { renderPlanJson } from '../../../src/views/plan/render-json.js';
import { renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import type { Plan } from '../../../src/types/plan.js';

const base: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [
    { op: 'start', replica: 'llama-1', model: 'llama', port: 8000, placement: [{ node: 'gpu-a02', gpus: [0, 1] }], weights: 'node', reason: 'missing' },
    { op: 'stop', replica: 'old-0', model: 'old', placement: [{ node: 'gpu-a01', gpus: [4, 5, 6, 7] }], reason: 'not in models.yaml', waitFor: [] },
  ],
  unplaceable: [],
};
const jobs: Plan = {
  ...base,
  slurmJobs: [
    { op: 'submit', name: 'llmgw/llama-1/0', replica: 'llama-1', rank: 0, node: 'gpu-a02', gpus: 2 },
    { op: 'cancel', name: 'llmgw/old-0/0', replica: 'old-0', rank: 0, node: 'gpu-a01', gpus: 4, id: '17' },
  ],
};

test('text: one line per job, sbatch with its GPU count, scancel with its job id', () => {
  const lines = renderPlanText(jobs, '', { color: false }).split('\n');
  assert.ok(lines.includes('  + slurm  sbatch llmgw/llama-1/0 on gpu-a02 (--gres=gpu:2)'), lines.join('\n'));
  assert.ok(lines.includes('  - slurm  scancel llmgw/old-0/0 (job 17) on gpu-a01'), lines.join('\n'));
});

test('markdown: a Slurm jobs list under the actions', () => {
  const md = renderPlanMarkdown(jobs, '');
  assert.ok(md.includes('**Slurm jobs**\n\n- `sbatch llmgw/llama-1/0 on gpu-a02 (--gres=gpu:2)`\n- `scancel llmgw/old-0/0 (job 17) on gpu-a01`'), md);
});

test('json: slurmJobs as data', () => {
  const json = JSON.parse(renderPlanJson(jobs)) as { slurmJobs: unknown };
  assert.equal(json.slurmJobs, jobs.slurmJobs);
});

test('without jobs the formats show no Slurm line or key', () => {
  assert.not.ok(renderPlanText(base, '', { color: false }).includes('slurm'));
  assert.not.ok(renderPlanMarkdown(base, '').includes('Slurm'));
  assert.not.ok('slurmJobs' in (JSON.parse(renderPlanJson(base)) as object));
});

test.run();
