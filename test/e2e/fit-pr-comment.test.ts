// Will it fit (docs/placement.md#will-it-fit), end to end: the simulated fleet
// (real SSH, the real agent over fake GPUs, a real git remote) with four nodes
// of 8 × A100-SXM4-40GB on ib-a and four of 8 × H100 80GB on ib-b, and the real
// Llama-3.1-70B-Instruct on the ib-a filer: its config.json as published and
// its 141,107,412,992 bytes of weights (70,553,706,496 bf16 parameters; a
// sparse file, so nothing is written to disk). A pull request adds it with
// `gpus: 2` on the A100s: its PR comment (`llmgw plan --base … --format
// markdown`, posted as the action posts it) says it cannot be placed, with the
// numbers, and the reconciler never starts it. The same model with `gpus: 4`
// on the H100s is placed, and `fit` says how many full-length sequences fit.

import { truncate, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { prComment } from '../../src/ci/pr-comment.js';
import { git } from '../../src/demo/git-remote.js';
import type { FakeGpu } from '../../src/sim/fake-nvidia-smi.js';
import { startFakeGitHub, type FakeGitHub } from '../ci/fake-github.js';
import { captureIo } from '../helpers/io.js';
import { startE2E } from './fleet-world.js';
import { DAY_START, mergePr, openPr, planPr, reconcileAndCompare, settle, type World } from './plan-commit-world.js';

const W70 = 'meta-llama/Llama-3.1-70B-Instruct';
/** safetensors total of the repo: 70,553,706,496 parameters × 2 bytes. */
const BYTES_70B = 141_107_412_992;
// meta-llama/Llama-3.1-70B-Instruct config.json as published (the fields the rule reads, and the rest it ignores).
const CONFIG_70B = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  bos_token_id: 128000,
  eos_token_id: [128001, 128008, 128009],
  hidden_act: 'silu',
  hidden_size: 8192,
  initializer_range: 0.02,
  intermediate_size: 28672,
  max_position_embeddings: 131072,
  model_type: 'llama',
  num_attention_heads: 64,
  num_hidden_layers: 80,
  num_key_value_heads: 8,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  transformers_version: '4.42.3',
  use_cache: true,
  vocab_size: 128256,
};

const A100_40: FakeGpu = { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 };
const H100_80: FakeGpu = { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 };

const BASE_MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: small, weights: org/small, engine: vllm, gpus: 1, replicas: 1, weightsBytes: 16060522240 }
`;
const with70b = (line: string) => `${BASE_MODELS}  - { name: llama-3.1-70b, weights: ${W70}, engine: vllm, ${line} }\n`;
/** The pull request as first pushed: 2 A100s; its size from weightsBytes, as the snapshot has not seen these weights yet. */
const PR_2_A100 = with70b(`gpuClass: A100, gpus: 2, replicas: 1, weightsBytes: ${BYTES_70B}`);
const PR_4_H100 = with70b(`gpuClass: H100, gpus: 4, replicas: 1, weightsBytes: ${BYTES_70B}`);

let w: World;
let gh: FakeGitHub;

test.before(async () => {
  const e = await startE2E({
    modelsYaml: BASE_MODELS,
    hardware: (config) => (node) =>
      Array.from({ length: 8 }, (_, i) => ({ ...(node.fabric === config.cluster.fabrics[0] ? A100_40 : H100_80), uuid: `GPU-${node.name}-${i}` })),
  });
  // examples/demo puts its first model's weights (these) on the ib-a filer: made real here.
  const dir = posix.join(e.world.dir, 'storage', 'filers', 'lustre-a', 'lustre/models', W70);
  await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG_70B, null, 2));
  await truncate(join(dir, 'model.safetensors'), BYTES_70B);
  w = { e, t: DAY_START, at: () => new Date(w.t), iso: () => new Date(w.t).toISOString().replace('.000Z', 'Z') };
  await settle(w);
  gh = await startFakeGitHub();
});
test.after(async () => {
  await gh.close();
  await w.e.close();
});

/** The PR comment as the GitHub Action makes it: `llmgw plan --base origin/main --format markdown`, then posted. */
async function prCommentBody(pr: number): Promise<string> {
  await git(w.e.people, ['fetch', '--quiet', 'origin']);
  const c = captureIo({ cwd: w.e.people, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  const code = await main(['plan', '--repo', w.e.people, '--base', 'origin/main', '--format', 'markdown', '--now', w.iso()], c.io);
  assert.is(code, 0, c.err());
  const files = join(w.e.world.dir, `pr-${pr}`);
  await writeFile(`${files}.md`, c.out());
  await writeFile(`${files}.err`, c.err());
  await writeFile(`${files}.validate`, '');
  const io = {
    env: { GITHUB_TOKEN: 'ghs_test', GITHUB_REPOSITORY: 'acme/fleet', GITHUB_API_URL: gh.api },
    stdout: { write: () => true },
    stderr: { write: () => true },
  };
  const args = ['--validate-output', `${files}.validate`, '--validate-exit', '0', '--plan', `${files}.md`, '--plan-errors', `${files}.err`, '--plan-exit', '0'];
  assert.is(await prComment([...args, '--pr', String(pr)], io), 0);
  const posted = gh.comments.get(pr) ?? [];
  assert.is(posted.length, 1, 'one comment on the pull request');
  return posted[0]!.body;
}

test('70B on 2 × A100-40GB: the PR comment says it cannot be placed, with the numbers, and merged it never starts', async () => {
  await openPr(w, { 'models.yaml': PR_2_A100 });
  const comment = await prCommentBody(7);
  // weightsBytes only (no node has reported these weights yet): 141,107,412,992 / 2 = 65.7 GiB; 40960 MiB × 0.9 = 36.0 GiB.
  assert.ok(comment.includes('**Plan: 0 to start, 0 to stop, 1 cannot be placed.**'), comment);
  assert.ok(comment.includes('**Cannot be placed**'), comment);
  assert.match(comment, /^\| llama-3\.1-70b \| 1 \| needs 65\.7 GiB per GPU for weights \\\+ 1 GiB; NVIDIA A100-SXM4-40GB gives 36\.0 GiB at 0\.9 \|$/m);
  assert.ok(comment.includes('**llama-3.1-70b** (spec `'), comment);
  assert.match(comment, /\*\*llama-3\.1-70b\*\* \(spec `[0-9a-f]+`\); does not fit A100$/m);

  const plan = await planPr(w);
  assert.equal(plan.json.actions, []);
  assert.equal((plan.json as unknown as { fit: unknown }).fit, {
    'llama-3.1-70b': { A100: { fits: false, weightsGiBPerGpu: 65.71, kvGiBPerGpu: null, maxModelLen: null, sequences: null } },
    small: {
      A100: { fits: true, weightsGiBPerGpu: 14.96, kvGiBPerGpu: null, maxModelLen: null, sequences: null },
      H100: { fits: true, weightsGiBPerGpu: 14.96, kvGiBPerGpu: null, maxModelLen: null, sequences: null },
    },
  });

  // Merged all the same: nothing is started (no out-of-memory loop), and now that the agents report the
  // weights' config.json, STATUS.md gives the KV cache too: 327,680 bytes a token × 131,072 / min(2, 8) = 20.0 GiB.
  await mergePr(w);
  w.t += 60_000;
  const r = await w.e.tick({ now: () => w.at() });
  assert.ok(
    r.status.includes(
      '- **llama-3.1-70b** (1 missing): needs 65.7 GiB per GPU for weights \\+ 1 GiB \\+ 20.0 GiB KV for 131072 tokens; NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9',
    ),
    r.status,
  );
  assert.equal(
    (await w.e.replicasOnFleet()).map((x) => x.id),
    ['small-0'],
  );
});

test('the same model with gpus: 4 on the 80 GB H100s is placed, and fit says 3 full-length sequences', async () => {
  await openPr(w, { 'models.yaml': PR_4_H100 });
  const comment = await prCommentBody(8);
  assert.ok(comment.includes('**Plan: 1 to start, 0 to stop, 0 cannot be placed.**'), comment);
  assert.not.ok(comment.includes('**Cannot be placed**'), comment);
  assert.match(comment, /\*\*llama-3\.1-70b\*\* \(spec `[0-9a-f]+`\); fits H100 \\\(3 full-length sequences\\\)$/m);

  const plan = await planPr(w);
  const start = plan.json.actions.find((a) => a.op === 'start') as unknown as { replica: string; placement: { node: string; gpus: number[] }[] };
  assert.is(start.replica, 'llama-3.1-70b-0');
  assert.match(start.placement[0]!.node, /^gpu-b0[1-4]$/);
  assert.is(start.placement[0]!.gpus.length, 4);
  // By hand: 81,559 MiB × 0.9 = 71.68 GiB a GPU; weights 141,107,412,992 / 4 = 35,276,853,248 bytes (32.85 GiB)
  // + 1 GiB leave 37.83 GiB; one 131,072-token sequence is 327,680 × 131,072 / min(4, 8) = 10 GiB, so 3 fit,
  // and the longest maxModelLen that fits is capped at max_position_embeddings, 131,072.
  assert.equal((plan.json as unknown as { fit: Record<string, unknown> }).fit['llama-3.1-70b'], {
    H100: { fits: true, weightsGiBPerGpu: 32.85, kvGiBPerGpu: 10, maxModelLen: 131072, sequences: 3 },
  });
  await mergePr(w);
  await reconcileAndCompare(w, plan);
});

test.run();
