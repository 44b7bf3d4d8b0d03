// A jobs-mode plan lists the Slurm jobs it submits and cancels by name
// (docs/slurm.md#jobs-mode-mode-jobs), in every format; a plan without them
// (no `slurm:`, observe mode) reads exactly as before.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { renderPlanJson } from '../../../src/views/plan/render-json.js';
import { MAX_CHARS, renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
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

test('text, with colour: a submit is painted green, a cancel red, each line whole', () => {
  const lines = renderPlanText(jobs, '', { color: true }).split('\n');
  assert.ok(lines.includes('\x1b[32m  + slurm  sbatch llmgw/llama-1/0 on gpu-a02 (--gres=gpu:2)\x1b[0m'), lines.join('\n'));
  assert.ok(lines.includes('\x1b[31m  - slurm  scancel llmgw/old-0/0 (job 17) on gpu-a01\x1b[0m'), lines.join('\n'));
});

test('a cancel whose Slurm job id is not known yet names it `job ?`', () => {
  const unknown: Plan = { ...base, slurmJobs: [{ op: 'cancel', name: 'llmgw/old-0/0', replica: 'old-0', rank: 0, node: 'gpu-a01', gpus: 4 }] };
  assert.ok(renderPlanText(unknown, '', { color: false }).split('\n').includes('  - slurm  scancel llmgw/old-0/0 (job ?) on gpu-a01'));
});

test('markdown, 2,000 jobs with long names: as many lines as fit, each cut to 60 characters, then how many more, under the limit', () => {
  const many: Plan = {
    ...base,
    actions: [],
    slurmJobs: Array.from({ length: 2_000 }, (_, i) => ({
      op: 'submit' as const,
      name: `llmgw/${'m'.repeat(40)}-${i}/0`,
      replica: `m-${i}`,
      rank: 0,
      node: 'gpu-a02',
      gpus: 2,
    })),
  };
  const md = renderPlanMarkdown(many, '');
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const lines = md.split('\n').filter((l) => l.startsWith('- '));
  const more = lines.pop()!;
  assert.ok(lines.length > 100, `${lines.length} shown: as many as fit`);
  assert.is(more, `- … and ${2_000 - lines.length} more (llmgw plan --format json lists every one)`);
  assert.is(lines[0], `- \`sbatch llmgw/${'m'.repeat(40)}-0/0 o…\``, 'each job cut to 60 characters');
});

test.run();
