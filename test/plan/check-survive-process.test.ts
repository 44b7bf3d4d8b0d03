// `llmgw plan --check-survive` as the GitHub Action runs it (docs/placement.md#survive):
// the built CLI in its own process, on a repo with an observed fleet of two
// nodes. One replica of a model with `survive: node` exits 3 with the warning
// on top; two replicas, which spread puts on the two nodes, exit 0.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planRepo, removePlanRepos } from './plan-repo.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

function plan(replicas: number, format: string[] = []) {
  const dir = planRepo(
    `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m, weights: org/m, engine: vllm, gpus: 4, replicas: ${String(replicas)}, survive: node, weightsBytes: 16060522240 }\n`,
    { memoryMiB: 81559 },
  );
  const args = [CLI, 'plan', '--repo', dir, '--observed', join(dir, '.llmgw', 'observed.json'), '--now', '2026-11-29T08:00:00Z', '--check-survive', ...format];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('one replica with survive: node: exit 3, the warning heading the PR comment', () => {
  const r = plan(1, ['--format', 'markdown']);
  assert.is(r.code, 3, r.err);
  assert.ok(
    r.out.startsWith(
      "### llmgw plan\n\n> **Warning:** model 'm' does not survive the loss of node n1: all its 1 replica run there \\(models.yaml survive: node\\).",
    ),
    r.out,
  );
});

test('two replicas: one on each node, exit 0', () => {
  const r = plan(2, ['--format', 'json']);
  assert.is(r.code, 0, r.err);
  const json = JSON.parse(r.out) as { actions: { placement: { node: string }[] }[]; survive: { node: { models: Record<string, unknown> } } };
  assert.equal(
    json.actions.map((a) => a.placement[0]!.node),
    ['n1', 'n2'],
  );
  assert.equal(json.survive.node.models.m, { from: 2, to: 1, worst: 'n1', roomToReplace: true });
});

test.after(removePlanRepos);

test.run();
