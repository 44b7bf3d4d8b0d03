// The apply in `mode: jobs` (docs/slurm.md#jobs-mode-mode-jobs), against a fake
// transport: a start is one `sbatch --parsable` per rank on slurm.host with the
// script on stdin and no `agent apply` start; a stop is `scancel --full
// --signal=TERM`, then the agent's stop with the grace, then `scancel`; the
// holder's guard is asked before every sbatch and scancel.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { executePlan } from '../../src/apply/executor.js';
import { applyGuard } from '../../src/apply/guard.js';
import { SshError } from '../../src/errors.js';
import type { Config } from '../../src/types/config.js';
import type { Action, Plan } from '../../src/types/plan.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import type { HostTarget, Transport } from '../../src/types/transport.js';
import { config, fakeTransport, fleet, node, replica } from './fixtures.js';

const SLURM = 'slurm host ctl.example';

function jobsConfig(): Config {
  const cfg = config([node('g1'), node('g2')]);
  cfg.cluster.slurm = { host: 'ctl.example', port: 22, partition: 'gpu', account: 'ml', mode: 'jobs', yield: false, names: { g2: 'gpu-b02' } };
  // A repo value a shell would expand: it must reach the job as plain bytes.
  cfg.models[0] = { ...cfg.models[0]!, args: ['--name', '$(touch /tmp/llmgw-pwned) `id` ${HOME}'] };
  return cfg;
}

const plan = (actions: Action[], extra: Partial<Plan> = {}): Plan => ({ version: 1, changes: true, blocked: null, actions, unplaceable: [], ...extra });

interface Seen {
  host: string;
  command: string;
  input: string;
}

/** The agents answer as fixtures' fakeTransport does; the Slurm host answers sbatch with 100, 101, … and scancel with nothing. */
function jobsTransport(opts: { refuseSbatch?: number; scancelDown?: boolean } = {}): Transport & { seen: Seen[] } {
  const agents = fakeTransport();
  const seen: Seen[] = [];
  let next = 100;
  let sbatches = 0;
  return {
    seen,
    async run(target: HostTarget, command: string, input: string) {
      seen.push({ host: target.name, command, input });
      if (target.name !== SLURM) return agents.run(target, command, input);
      if (command === 'sbatch --parsable') {
        sbatches += 1;
        if (sbatches === opts.refuseSbatch) throw new SshError('command-failed', target.name, 'sbatch: error: Batch job submission failed: Invalid account');
        return `${next++}\n`;
      }
      if (opts.scancelDown === true) throw new SshError('unreachable', target.name, 'connect ECONNREFUSED');
      return '';
    },
    async close() {},
  };
}

const start = (replica: string, model: string, nodes: string[], gpus: number[] = [0, 1]): Action => ({
  op: 'start',
  replica,
  model,
  port: 8000,
  weights: 'none',
  reason: 'missing',
  placement: nodes.map((n) => ({ node: n, gpus })),
});

test('jobs mode: each rank is one `sbatch --parsable` on slurm.host with the script on stdin; no node is sent a start', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport();
  const out = await executePlan(plan([start('big-0', 'big', ['g1', 'g2'], [0, 1, 2, 3, 4, 5, 6, 7])]), { config: cfg, fleet: fleet(cfg, []), transport: t });
  const slurm = t.seen.filter((c) => c.host === SLURM);
  assert.equal(
    slurm.map((c) => c.command),
    ['sbatch --parsable', 'sbatch --parsable'],
  );
  assert.is(t.seen.filter((c) => c.host !== SLURM && c.command.endsWith(' apply')).length, 0, 'no agent apply');
  const [r0, r1] = slurm.map((c) => c.input.split('\n'));
  assert.equal(r0!.slice(0, 8), [
    '#!/bin/sh',
    '#SBATCH --job-name=llmgw/big-0/0',
    '#SBATCH --nodelist=g1',
    '#SBATCH --gres=gpu:8',
    '#SBATCH --partition=gpu',
    '#SBATCH --account=ml',
    '#SBATCH --output=/dev/null',
    "exec llmgw agent job <<'LLMGW_REQ'",
  ]);
  // nodes[].slurmName: Slurm's name of g2.
  assert.is(r1![1], '#SBATCH --job-name=llmgw/big-0/1');
  assert.is(r1![2], '#SBATCH --nodelist=gpu-b02');
  const req = JSON.parse(r1![8]!) as { replica: string; rank: number; gpus: number[] };
  assert.equal([req.replica, req.rank, req.gpus.length], ['big-0', 1, 8]);
  assert.equal(out.results[0], { op: 'start', replica: 'big-0', model: 'big', status: 'ok', nodes: ['g1', 'g2'], slurmJobs: ['100', '101'] });
  assert.is(out.started, 1);
});

test('jobs mode: a repo value with $(…), backticks and ${…} reaches the job script inside the quoted here-document, verbatim, with the lease', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport();
  const guard = applyGuard({ lease: { epoch: 7, holder: 'h-1' }, safetyMs: 0, now: () => new Date() });
  await executePlan(plan([start('llama-0', 'llama', ['g1'])]), { config: cfg, fleet: fleet(cfg, []), transport: t, guard });
  const [sb] = t.seen.filter((c) => c.host === SLURM);
  const lines = sb!.input.split('\n');
  assert.is(lines[7], "exec llmgw agent job <<'LLMGW_REQ'");
  assert.equal(lines.slice(9), ['LLMGW_REQ', '']);
  const req = JSON.parse(lines[8]!) as { command: string[]; lease: unknown };
  assert.ok(req.command.includes('$(touch /tmp/llmgw-pwned) `id` ${HOME}'), req.command.join(' '));
  assert.equal(req.lease, { epoch: 7, holder: 'h-1' });
  assert.is(sb!.command.includes('touch'), false, 'nothing of the repo is on the command line');
});

test('jobs mode: a stop is scancel --full --signal=TERM, then the agent`s stop with the stopGrace, then scancel, in that order', async () => {
  const cfg = jobsConfig();
  const report: AgentReport = {
    version: 1,
    node: 'g1',
    gpus: [],
    replicas: [{ id: 'llama-0', model: 'llama', gpus: [3, 4], state: 'running', rank: 0, slurmJob: '42' }],
  } as unknown as AgentReport;
  const f = fleet(cfg, [], {}, { g1: report });
  const t = jobsTransport();
  const stop: Action = { op: 'stop', replica: 'llama-0', model: 'llama', reason: 'not in models.yaml', waitFor: [], placement: [{ node: 'g1', gpus: [3, 4] }] };
  const out = await executePlan(plan([stop]), { config: cfg, fleet: f, transport: t });
  const seq = t.seen.filter((c) => !c.command.endsWith(' endpoints')).map((c) => `${c.host}: ${c.command}`);
  assert.equal(seq, [`${SLURM}: scancel --full --signal=TERM 42`, 'g1: llmgw agent apply', `${SLURM}: scancel 42`]);
  const agentStop = JSON.parse(t.seen.find((c) => c.host === 'g1')!.input) as { stop: { replica: string; graceSeconds: number }[] };
  assert.equal(agentStop.stop, [{ replica: 'llama-0', graceSeconds: 30 }]);
  assert.is(out.results[0]?.status, 'ok');
});

test('jobs mode: a drain cancels nothing; a stop whose job Slurm already ended is only the agent`s stop', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport();
  const f = fleet(cfg, [replica('llama-0', 'llama', ['g1'], 'running')]);
  const drain: Action = { op: 'stop', replica: 'llama-0', model: 'llama', reason: 'r', waitFor: [], phase: 'drain', placement: [{ node: 'g1', gpus: [0, 1] }] };
  const failed: Action = { op: 'stop', replica: 'llama-1', model: 'llama', reason: 'failed', waitFor: [], placement: [{ node: 'g2', gpus: [0, 1] }] };
  await executePlan(plan([drain, failed], { slurmJobs: [] }), { config: cfg, fleet: f, transport: t });
  assert.equal(
    t.seen.filter((c) => c.host === SLURM),
    [],
  );
  assert.equal(
    t.seen.filter((c) => c.command.endsWith(' apply')).map((c) => c.host),
    ['g2'],
  );
});

test('jobs mode: a rank Slurm refuses fails the start and cancels the ranks already submitted', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport({ refuseSbatch: 2 });
  const out = await executePlan(plan([start('big-0', 'big', ['g1', 'g2'], [0, 1, 2, 3, 4, 5, 6, 7])]), { config: cfg, fleet: fleet(cfg, []), transport: t });
  assert.equal(
    t.seen.filter((c) => c.host === SLURM).map((c) => c.command),
    ['sbatch --parsable', 'sbatch --parsable', 'scancel 100'],
  );
  assert.is(out.results[0]?.status, 'failed');
  assert.match(out.results[0]?.error ?? '', /^g2: sbatch: error: Batch job submission failed: Invalid account$/);
  assert.equal(
    out.failures.map((x) => [x.op, x.host]),
    [['start', 'g2']],
  );
});

test('jobs mode: the lease is re-checked before every sbatch: a guard past its deadline submits nothing and defers the start', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport();
  const now = new Date('2026-11-29T08:00:00Z');
  const guard = applyGuard({ lease: { epoch: 3, holder: 'h' }, expiresAt: () => new Date(now.getTime() + 1_000), safetyMs: 60_000, now: () => now });
  const out = await executePlan(plan([start('llama-0', 'llama', ['g1'])]), { config: cfg, fleet: fleet(cfg, []), transport: t, guard });
  assert.is(t.seen.filter((c) => c.host === SLURM).length, 0);
  assert.is(out.results[0]?.status, 'deferred');
  assert.match(out.results[0]?.reason ?? '', /^not sent: the lease's deadline passed/);
});

test('jobs mode: a stop whose scancels never reach Slurm, and whose agent stop is ok, still fails naming the job', async () => {
  const cfg = jobsConfig();
  const t = jobsTransport({ scancelDown: true });
  const stop: Action = { op: 'stop', replica: 'llama-0', model: 'llama', reason: 'r', waitFor: [], placement: [{ node: 'g1', gpus: [0, 1] }] };
  const jobs = [{ op: 'cancel' as const, name: 'llmgw/llama-0/0', replica: 'llama-0', rank: 0, node: 'g1', gpus: 2, id: '9' }];
  const out = await executePlan(plan([stop], { slurmJobs: jobs }), { config: cfg, fleet: fleet(cfg, []), transport: t });
  assert.is(out.results[0]?.status, 'failed');
  assert.is(out.results[0]?.error, `${SLURM}: scancel 9 (llmgw/llama-0/0): connect ECONNREFUSED`);
});

test('without slurm: a start is still agent apply on the node, and Slurm is never called', async () => {
  const cfg = config([node('g1')]);
  const t = jobsTransport();
  await executePlan(plan([start('llama-0', 'llama', ['g1'])]), { config: cfg, fleet: fleet(cfg, []), transport: t });
  assert.equal(
    t.seen.filter((c) => !c.command.endsWith(' endpoints')).map((c) => `${c.host}: ${c.command}`),
    ['g1: llmgw agent apply'],
  );
});

test.run();
