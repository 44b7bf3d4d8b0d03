// Which Slurm jobs a jobs-mode plan submits and cancels (docs/slurm.md#jobs-mode-mode-jobs),
// src/slurm/submit.ts: one submit per rank with the plan's GPU count; a
// cancel names the job the node's agent recorded, else the one Slurm lists by
// name on that node; never one Slurm already ended, never a duplicate's by name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planJobs, withPlanJobs } from '../../src/slurm/submit.js';
import type { Config } from '../../src/types/config.js';
import type { Action, Plan } from '../../src/types/plan.js';
import type { AgentReport, SlurmView } from '../../src/types/snapshot.js';
import { config, node } from '../apply/fixtures.js';

function jobsConfig(mode: 'jobs' | 'observe' = 'jobs'): Config {
  const cfg = config([node('g1'), node('g2')]);
  cfg.cluster.slurm = { host: 'ctl', port: 22, partition: 'gpu', mode, yield: false, names: {} };
  return cfg;
}

const plan = (actions: Action[]): Plan => ({ version: 1, changes: true, blocked: null, actions, unplaceable: [] });
const stop = (replica: string, nodes: string[], extra: Partial<Action> = {}): Action =>
  ({ op: 'stop', replica, model: 'llama', reason: 'r', waitFor: [], placement: nodes.map((n) => ({ node: n, gpus: [0, 1] })), ...extra }) as Action;
const view = (jobs: SlurmView['jobs']): SlurmView => ({ reachable: true, nodes: {}, jobs, pending: 0 });
const report = (nodeName: string, replicas: { id: string; rank?: number; slurmJob?: string }[]): AgentReport =>
  ({
    version: 1,
    node: nodeName,
    gpus: [],
    replicas: replicas.map((r) => ({ model: 'llama', gpus: [0, 1], state: 'running', ...r })),
  }) as unknown as AgentReport;

test('a start submits one job per rank, named llmgw/<replica>/<rank>, with the GPU count the plan chose', () => {
  const start: Action = {
    op: 'start',
    replica: 'big-0',
    model: 'big',
    port: 8002,
    weights: 'none',
    reason: 'missing',
    placement: [
      { node: 'g2', gpus: [0, 1, 2, 3] },
      { node: 'g1', gpus: [4, 5, 6, 7] },
    ],
  };
  assert.equal(
    planJobs(plan([start]), jobsConfig(), undefined, () => null),
    [
      { op: 'submit', name: 'llmgw/big-0/0', replica: 'big-0', rank: 0, node: 'g2', gpus: 4 },
      { op: 'submit', name: 'llmgw/big-0/1', replica: 'big-0', rank: 1, node: 'g1', gpus: 4 },
    ],
  );
});

test('a cancel takes the job id the node`s agent recorded for that rank, before any job Slurm lists by the name', () => {
  const reports: Record<string, AgentReport> = { g1: report('g1', [{ id: 'llama-0', slurmJob: '12' }]) };
  const v = view([{ id: '15', name: 'llmgw/llama-0/0', node: 'g1', state: 'running', gpus: 2 }]);
  assert.equal(
    planJobs(plan([stop('llama-0', ['g1'])]), jobsConfig(), v, (n) => reports[n] ?? null),
    [{ op: 'cancel', name: 'llmgw/llama-0/0', replica: 'llama-0', rank: 0, node: 'g1', gpus: 2, id: '12' }],
  );
});

test('with no report of the rank, the job of its name on that node (or still pending) is cancelled; one on another node is not', () => {
  const v = view([
    { id: '20', name: 'llmgw/llama-0/0', node: '', state: 'pending', gpus: 2 },
    { id: '21', name: 'llmgw/llama-1/0', node: 'g2', state: 'running', gpus: 2 },
  ]);
  const jobs = planJobs(plan([stop('llama-0', ['g1']), stop('llama-1', ['g1'])]), jobsConfig(), v, () => null);
  assert.equal(
    jobs?.map((j) => [j.name, j.id]),
    [['llmgw/llama-0/0', '20']],
  );
});

test('no cancel for a job Slurm already ended, a drain, or a duplicate`s copy by name', () => {
  const reports: Record<string, AgentReport> = { g1: report('g1', [{ id: 'llama-0', slurmJob: '30' }]) };
  const v = view([
    { id: '30', name: 'llmgw/llama-0/0', node: 'g1', state: 'cancelled', gpus: 2 },
    { id: '31', name: 'llmgw/llama-1/0', node: 'g2', state: 'running', gpus: 2 },
    { id: '32', name: 'llmgw/llama-2/0', node: 'g1', state: 'running', gpus: 2 },
  ]);
  const actions = [stop('llama-0', ['g1']), stop('llama-1', ['g2'], { duplicate: true }), stop('llama-2', ['g1'], { phase: 'drain' })];
  assert.equal(
    planJobs(plan(actions), jobsConfig(), v, (n) => reports[n] ?? null),
    [],
  );
});

test('outside jobs mode a plan lists no jobs and is returned as it is', () => {
  const p = plan([stop('llama-0', ['g1'])]);
  assert.is(
    planJobs(p, jobsConfig('observe'), undefined, () => null),
    undefined,
  );
  assert.is(
    withPlanJobs(p, config([node('g1')]), undefined, () => null),
    p,
  );
});

test.run();
