// A job llmgw submitted whose agent has not recorded the replica yet (src/slurm/job-waiting.ts)
// is read as a starting replica where its record places it, so the next tick
// does not submit it again; an ended job, a job without a record, or one on
// another node adds nothing, and outside jobs mode the snapshot is untouched.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withEndedJobs, withWaitingJobs } from '../../src/slurm/job-waiting.js';
import type { Config } from '../../src/types/config.js';
import type { Snapshot, SlurmJobView } from '../../src/types/snapshot.js';
import type { PlacementRecord } from '../../src/types/state.js';
import { config, node } from '../apply/fixtures.js';

function cfg(mode: 'jobs' | 'observe'): Config {
  const c = config([node('g1'), node('g2')]);
  c.cluster.slurm = { host: 'ctl', port: 22, partition: 'gpu', mode, yield: false, names: {} };
  return c;
}

const records: Record<string, PlacementRecord> = {
  'llama-0': { model: 'llama', state: 'starting', ranks: [{ node: 'g1', rank: 0, gpus: [0, 1] }], port: 8000 },
  'llama-1': { model: 'llama', state: 'running', ranks: [{ node: 'g2', rank: 0, gpus: [2, 3] }], port: 8001 },
};

function snapshot(jobs: SlurmJobView[], g2Replicas: unknown[] = []): Snapshot {
  const report = (name: string, replicas: unknown[]) => ({ version: 1, node: name, gpus: [], replicas, storage: [] });
  return {
    version: 1,
    observedAt: '2026-12-01T00:00:00Z',
    nodes: [
      { name: 'g1', reachable: true, report: report('g1', []) },
      { name: 'g2', reachable: true, report: report('g2', g2Replicas) },
    ],
    routers: [],
    slurm: { reachable: true, nodes: {}, jobs, pending: 0 },
  } as unknown as Snapshot;
}

test('a pending job of a recorded replica that no node reports is a starting replica on its node of record, with its job', () => {
  const out = withWaitingJobs(snapshot([{ id: '5', name: 'llmgw/llama-0/0', node: '', state: 'pending', gpus: 2 }]), cfg('jobs'), records);
  const g1 = out.nodes[0]!;
  assert.equal(g1.reachable ? g1.report.replicas : null, [
    { id: 'llama-0', model: 'llama', gpus: [0, 1], state: 'starting', rank: 0, port: 8000, slurmJob: '5' },
  ]);
});

test('nothing is added for a rank a node reports, an ended job, a job with no record, or one on another node', () => {
  const reported = [{ id: 'llama-1', model: 'llama', gpus: [2, 3], state: 'running', rank: 0 }];
  const jobs: SlurmJobView[] = [
    { id: '6', name: 'llmgw/llama-1/0', node: 'g2', state: 'running', gpus: 2 },
    { id: '7', name: 'llmgw/llama-0/0', node: 'g1', state: 'cancelled', gpus: 2 },
    { id: '8', name: 'llmgw/other-0/0', node: 'g1', state: 'running', gpus: 1 },
  ];
  const snap = snapshot(jobs, reported);
  assert.is(withWaitingJobs(snap, cfg('jobs'), records), snap);
  const moved = snapshot([{ id: '9', name: 'llmgw/llama-0/0', node: 'g2', state: 'running', gpus: 2 }]);
  assert.is(withWaitingJobs(moved, cfg('jobs'), records), moved);
});

test('observe mode: the snapshot is returned as it is', () => {
  const snap = snapshot([{ id: '5', name: 'llmgw/llama-0/0', node: '', state: 'pending', gpus: 2 }]);
  assert.is(withWaitingJobs(snap, cfg('observe'), records), snap);
});

test('a rank reported alive whose Slurm job ended is read as failed, with why; a live job and a rank without a job are left as reported', () => {
  const reported = [
    { id: 'llama-1', model: 'llama', gpus: [2, 3], state: 'running', rank: 0, slurmJob: '6' },
    { id: 'llama-2', model: 'llama', gpus: [4], state: 'starting', rank: 0, slurmJob: '7' },
    { id: 'llama-3', model: 'llama', gpus: [5], state: 'running', rank: 0 },
  ];
  const jobs: SlurmJobView[] = [
    { id: '6', name: 'llmgw/llama-1/0', node: 'g2', state: 'preempted', gpus: 2 },
    { id: '7', name: 'llmgw/llama-2/0', node: 'g2', state: 'running', gpus: 1 },
  ];
  const out = withEndedJobs(snapshot(jobs, reported), cfg('jobs'));
  const g2 = out.nodes[1]!;
  assert.equal(
    (g2.reachable ? g2.report.replicas : []).map((r) => [r.id, r.state, r.error]),
    [
      ['llama-1', 'failed', 'Slurm job 6 ended (preempted)'],
      ['llama-2', 'starting', undefined],
      ['llama-3', 'running', undefined],
    ],
  );
  const observe = snapshot(jobs, reported);
  assert.is(withEndedJobs(observe, cfg('observe')), observe);
});

test.run();
