// Slurm 22.05's own output (captured from the harness cluster into
// test/slurm/fixtures/) read into the snapshot's `slurm` view (docs/slurm.md):
// state and flags lowercase joined by '+', Slurm's reason kept, GPUs of jobs
// that are not llmgw's counted per node, llmgw's jobs listed by name, pending
// GPUs counted in the partition; reservations parsed from scontrol's text;
// the node conditions in Slurm's words; and every size bounded.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gpuIndicesInGres, gpusInGres } from '../../src/slurm/gres.js';
import { jobEnded, jobName, llmgwJobs, parseJobName } from '../../src/slurm/job-name.js';
import { parseReservations } from '../../src/slurm/reservations.js';
import { parseSinfo } from '../../src/slurm/sinfo.js';
import { parseSqueue } from '../../src/slurm/squeue.js';
import { SlurmParseError } from '../../src/slurm/parse-error.js';
import { slurmConditionOf, slurmConditions } from '../../src/slurm/condition.js';
import { buildSlurmView, unreachableSlurmView } from '../../src/slurm/view.js';
import type { SlurmConfig } from '../../src/types/config.js';

const FIXTURES = fileURLToPath(new URL('../../../test/slurm/fixtures/', import.meta.url));
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const SLURM: SlurmConfig = { host: 'ctl', port: 22, mode: 'observe', yield: false, names: {}, partition: 'gpu' };
const NODES = ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04'];
// The fixtures were captured at 2026-12-02T03:39:16Z (the reservation's start); its end is two hours on.
const READ_AT = '2026-12-02T03:40:00Z';

function capturedView(slurm: SlurmConfig = SLURM) {
  return buildSlurmView(
    slurm,
    NODES,
    {
      sinfo: parseSinfo(fixture('sinfo-22.05.json')),
      squeue: parseSqueue(fixture('squeue-22.05.json')),
      reservations: parseReservations(fixture('scontrol-reservations-epoch-22.05.txt').replaceAll('gpu-a[01-02],gpu-b01', 'gpu-a04')),
    },
    READ_AT,
  );
}

test('sinfo --json of 22.05: state and flags lowercase joined by +, the reason, partitions and GPUs of each node', () => {
  assert.equal(parseSinfo(fixture('sinfo-22.05.json')), [
    { name: 'gpu-a01', state: 'mixed', reason: '', partitions: ['gpu'], gpus: 8 },
    { name: 'gpu-a02', state: 'mixed', reason: '', partitions: ['gpu'], gpus: 8 },
    { name: 'gpu-a03', state: 'idle+drain', reason: 'bad fan', partitions: ['gpu'], gpus: 4 },
    { name: 'gpu-a04', state: 'idle+maintenance+reserved', reason: '', partitions: ['gpu'], gpus: 4 },
  ]);
});

test('squeue --json of 22.05: each job state lowercase, its GPUs on each node from gres_detail, a pending job its asked GPUs', () => {
  assert.equal(parseSqueue(fixture('squeue-22.05.json')), [
    {
      id: '1',
      name: 'batch/train',
      state: 'running',
      reason: 'None',
      partitions: ['gpu'],
      nodes: [{ name: 'gpu-a01', gpus: 4, indices: [0, 1, 2, 3] }],
      gpusAsked: 4,
      requiredNodes: '',
      excludedNodes: '',
    },
    {
      id: '2',
      name: 'llmgw/m-abc12/0',
      state: 'running',
      reason: 'None',
      partitions: ['gpu'],
      nodes: [{ name: 'gpu-a02', gpus: 2, indices: [0, 1] }],
      gpusAsked: 2,
      requiredNodes: '',
      excludedNodes: '',
    },
    { id: '3', name: 'batch/big', state: 'pending', reason: 'Resources', partitions: ['gpu'], nodes: [], gpusAsked: 8, requiredNodes: '', excludedNodes: '' },
  ]);
  // A job on two nodes holds its GPUs on each of them.
  const two = parseSqueue(fixture('squeue-two-nodes-22.05.json'));
  assert.equal(two[0]?.nodes, [
    { name: 'gpu-a01', gpus: 2, indices: [0, 1] },
    { name: 'gpu-a02', gpus: 2, indices: [0, 1] },
  ]);
  assert.is(two[0]?.gpusAsked, 4);
});

test('scontrol show reservation (SLURM_TIME_FORMAT=%s): names, nodes from the hostlist, ISO times, flags, state', () => {
  assert.equal(parseReservations(fixture('scontrol-reservations-epoch-22.05.txt')), [
    {
      name: 'maint-a',
      nodes: ['gpu-a01', 'gpu-a02', 'gpu-b01'],
      start: '2026-12-02T03:40:09Z',
      end: '2026-12-02T05:40:09Z',
      active: true,
      flags: ['maint', 'spec_nodes'],
    },
    { name: 'later', nodes: ['gpu-b02'], start: '2026-12-02T04:40:09Z', end: '2026-12-02T05:40:09Z', active: false, flags: ['spec_nodes'] },
  ]);
  // Times in Slurm's default local format have no zone: not guessed at, State= decides.
  const local = parseReservations(fixture('scontrol-reservation-22.05.txt'));
  assert.equal(local, [{ name: 'maint-a04', nodes: ['gpu-a04'], start: null, end: null, active: true, flags: ['maint', 'spec_nodes'] }]);
  assert.equal(parseReservations('No reservations in the system\n'), []);
});

test('the view: GPUs of jobs that are not llmgw`s per node, llmgw`s jobs listed, pending GPUs in the partition', () => {
  const view = capturedView();
  assert.is(view.reachable, true);
  assert.equal(view.nodes['gpu-a01'], { state: 'mixed', reason: '', gpusAllocated: 4, partitions: ['gpu'], gpuIndicesAllocated: [0, 1, 2, 3] });
  // gpu-a02's 2 GPUs are llmgw's own job: not another's.
  assert.equal(view.nodes['gpu-a02'], { state: 'mixed', reason: '', gpusAllocated: 0, partitions: ['gpu'] });
  assert.equal(view.nodes['gpu-a03'], { state: 'idle+drain', reason: 'bad fan', gpusAllocated: 0, partitions: ['gpu'] });
  assert.equal(view.nodes['gpu-a04']?.reservations, [
    { name: 'maint-a', start: '2026-12-02T03:40:09Z', end: '2026-12-02T05:40:09Z', active: true, flags: ['maint', 'spec_nodes'] },
  ]);
  assert.equal(view.jobs, [{ id: '2', name: 'llmgw/m-abc12/0', node: 'gpu-a02', state: 'running', gpus: 2 }]);
  assert.is(view.pending, 8);
  assert.equal(view.pendingJobs, ['3']);
  assert.equal(view.pendingNeeds, [{ id: '3', gpus: 8, partitions: ['gpu'] }]);
  // Pending jobs of another partition are not counted.
  assert.is(capturedView({ ...SLURM, partition: 'cpu' }).pending, 0);
  // A held job, or one waiting on another job, is pending but no free GPU would start it: not counted.
  for (const reason of ['JobHeldUser', 'JobHeldAdmin', 'Dependency', 'BeginTime']) {
    const squeue = parseSqueue(fixture('squeue-22.05.json')).map((j) => (j.id === '3' ? { ...j, reason } : j));
    const v = buildSlurmView(SLURM, NODES, { sinfo: [], squeue, reservations: [] }, READ_AT);
    assert.is(v.pending, 0, reason);
  }
  for (const reason of ['Resources', 'Priority', 'ReqNodeNotAvail, UnavailableNodes:gpu-a03']) {
    const squeue = parseSqueue(fixture('squeue-22.05.json')).map((j) => (j.id === '3' ? { ...j, reason } : j));
    assert.is(buildSlurmView(SLURM, NODES, { sinfo: [], squeue, reservations: [] }, READ_AT).pending, 8, reason);
  }
});

test('a pending job`s --nodelist and --exclude: Slurm`s hostlists read into cluster.yaml names (slurmName mapped, unknown nodes dropped); odd text is none', () => {
  const base = parseSqueue(fixture('squeue-22.05.json'));
  const withLists = (required: unknown, excluded: unknown) => {
    const doc = JSON.parse(fixture('squeue-22.05.json')) as { jobs: Record<string, unknown>[] };
    for (const j of doc.jobs) if (j.job_id === 3) Object.assign(j, { required_nodes: required, excluded_nodes: excluded });
    return parseSqueue(JSON.stringify(doc));
  };
  const jobs = withLists('gpu-a[01-02],x9', 'gpu-a03');
  assert.equal(
    jobs.map((j) => [j.requiredNodes, j.excludedNodes]),
    [...base.slice(0, 2).map(() => ['', '']), ['gpu-a[01-02],x9', 'gpu-a03']],
  );
  const v = buildSlurmView(
    { ...SLURM, names: { 'gpu-a02': 'slurm-a02' } },
    NODES,
    { sinfo: [], squeue: withLists('gpu-a01,slurm-a02,x9', 'gpu-a03'), reservations: [] },
    READ_AT,
  );
  assert.equal(v.pendingNeeds, [{ id: '3', gpus: 8, partitions: ['gpu'], nodes: ['gpu-a01', 'gpu-a02'], excluded: ['gpu-a03'] }]);
  // Not a hostlist (a shell word, a number): read as none given, never half a list.
  assert.equal(withLists('gpu-a01;rm -rf', 7).map((j) => [j.requiredNodes, j.excludedNodes])[2], ['', '']);
});

test('conditions in Slurm`s words: a drain with its reason, a maintenance reservation, none for a busy but healthy node', () => {
  const view = capturedView();
  const now = new Date('2026-12-02T04:00:00Z');
  assert.equal(slurmConditionOf(view, 'gpu-a03', now), { state: 'idle+drain', reason: 'bad fan' });
  assert.equal(slurmConditionOf(view, 'gpu-a04', now), { state: 'idle+maintenance+reserved', reason: 'reservation maint-a (maint)' });
  assert.is(slurmConditionOf(view, 'gpu-a01', now), null);
  assert.is(slurmConditionOf(view, 'gpu-a02', now), null);
  assert.is(slurmConditionOf(undefined, 'gpu-a01', now), null);
  // Status JSON's nodes.slurm: the nodes in the condition, in the order asked.
  assert.equal(slurmConditions(view, ['gpu-a04', 'gpu-a01', 'gpu-a03'], now), [
    { node: 'gpu-a04', state: 'idle+maintenance+reserved', reason: 'reservation maint-a (maint)' },
    { node: 'gpu-a03', state: 'idle+drain', reason: 'bad fan' },
  ]);
  assert.equal(slurmConditions(undefined, ['gpu-a03'], now), []);
});

test('a reservation counts only while active: not before its start, not after its end, never llmgw`s own', () => {
  const plain = (start: string, end: string) => ({
    reachable: true,
    nodes: {
      n: { state: 'idle+reserved', reason: '', gpusAllocated: 0, partitions: ['gpu'], reservations: [{ name: 'r1', start, end, active: false, flags: [] }] },
    },
    jobs: [],
    pending: 0,
  });
  const v = plain('2026-12-02T04:00:00Z', '2026-12-02T05:00:00Z');
  assert.is(slurmConditionOf(v, 'n', new Date('2026-12-02T03:59:59Z')), null);
  assert.equal(slurmConditionOf(v, 'n', new Date('2026-12-02T04:00:00Z')), { state: 'idle+reserved', reason: 'reservation r1' });
  assert.is(slurmConditionOf(v, 'n', new Date('2026-12-02T05:00:00Z')), null);
  const own = buildSlurmView(
    { ...SLURM, reservation: 'maint-a' },
    ['gpu-a01'],
    {
      sinfo: [{ name: 'gpu-a01', state: 'idle+reserved', reason: '', partitions: ['gpu'], gpus: 8 }],
      squeue: [],
      reservations: parseReservations(fixture('scontrol-reservations-epoch-22.05.txt')),
    },
    READ_AT,
  );
  assert.is(own.nodes['gpu-a01']?.reservations, undefined);
  assert.is(slurmConditionOf(own, 'gpu-a01', new Date('2026-12-02T04:00:00Z')), null);
});

test('each unplaceable state word is a condition (down, drain, fail, maint, and their 22.05 spellings); others are not', () => {
  const at = (state: string) =>
    slurmConditionOf({ reachable: true, nodes: { n: { state, reason: 'r', gpusAllocated: 0, partitions: ['gpu'] } }, jobs: [], pending: 0 }, 'n', new Date(0));
  for (const s of [
    'down',
    'down+not_responding',
    'idle+drain',
    'allocated+drain',
    'drained',
    'draining',
    'mixed+fail',
    'failing',
    'idle+maint',
    'idle+maintenance',
  ]) {
    assert.equal(at(s), { state: s, reason: 'r' }, s);
  }
  for (const s of ['idle', 'mixed', 'allocated', 'idle+completing', 'mixed+reserved']) assert.is(at(s), null, s);
});

test('a node outside slurm.partition, or not listed by Slurm when a partition is set, is not placeable; without a partition an unlisted node is', () => {
  const view = { reachable: true, nodes: { n: { state: 'idle', reason: '', gpusAllocated: 0, partitions: ['cpu'] } }, jobs: [], pending: 0, partition: 'gpu' };
  assert.equal(slurmConditionOf(view, 'n', new Date(0)), { state: 'idle', reason: 'not in partition gpu' });
  assert.equal(slurmConditionOf(view, 'other', new Date(0)), { state: 'unknown', reason: 'Slurm does not list this node in partition gpu' });
  assert.is(slurmConditionOf({ ...view, partition: undefined }, 'other', new Date(0)), null);
});

test('slurmName maps Slurm`s node names onto cluster.yaml`s in nodes and jobs', () => {
  const view = buildSlurmView(
    { ...SLURM, names: { a: 'gpu-a01', b: 'gpu-a02' } },
    ['a', 'b'],
    { sinfo: parseSinfo(fixture('sinfo-22.05.json')), squeue: parseSqueue(fixture('squeue-22.05.json')), reservations: [] },
    READ_AT,
  );
  assert.equal(Object.keys(view.nodes), ['a', 'b']);
  assert.is(view.nodes.a?.gpusAllocated, 4);
  assert.is(view.jobs[0]?.node, 'b');
});

test('unreachable: the last view holds, marked, for lostAfter from the first failure; then it is empty and every node unknown', () => {
  const last = capturedView();
  const t0 = new Date('2026-12-02T04:00:00Z');
  const first = unreachableSlurmView(last, 'slurm host ctl: connection refused', t0, 600_000, 'gpu');
  assert.equal(
    { ...first, error: first.error, unreachableSince: first.unreachableSince },
    { ...last, reachable: false, error: 'slurm host ctl: connection refused', unreachableSince: '2026-12-02T04:00:00Z' },
  );
  assert.equal(slurmConditionOf(first, 'gpu-a03', t0), { state: 'idle+drain', reason: 'bad fan' });
  assert.is(slurmConditionOf(first, 'gpu-a01', t0), null);
  const later = unreachableSlurmView(first, 'still refused', new Date(t0.getTime() + 599_999), 600_000, 'gpu');
  assert.is(later.unreachableSince, '2026-12-02T04:00:00Z');
  assert.equal(later.nodes, last.nodes);
  const lost = unreachableSlurmView(later, 'still refused', new Date(t0.getTime() + 600_000), 600_000, 'gpu');
  assert.equal(lost, { reachable: false, nodes: {}, jobs: [], pending: 0, partition: 'gpu', error: 'still refused', unreachableSince: '2026-12-02T04:00:00Z' });
  assert.equal(slurmConditionOf(lost, 'gpu-a01', t0), { state: 'unknown', reason: 'Slurm unreachable since 2026-12-02T04:00:00Z: still refused' });
  // No previous view at all: unknown at once.
  assert.equal(unreachableSlurmView(undefined, 'e', t0, 600_000, undefined), {
    reachable: false,
    nodes: {},
    jobs: [],
    pending: 0,
    error: 'e',
    unreachableSince: '2026-12-02T04:00:00Z',
  });
});

test('GRES strings: typed, several, with indices, gres: prefixed; other resources and junk count 0', () => {
  const cases: [unknown, number][] = [
    ['gpu:4', 4],
    ['gpu:h100:4(IDX:0-3)', 4],
    ['gres:gpu:8', 8],
    ['gpu:a100:2(IDX:0-1),gpu:h100:1(IDX:2)', 3],
    ['gpu:2(IDX:0,2),shard:4', 2],
    ['gres:shard:2', 0],
    ['N/A', 0],
    ['', 0],
    [null, 0],
    ['gpu:99999999999', 0],
    ['gpu:x:y', 0],
  ];
  for (const [g, n] of cases) assert.is(gpusInGres(g), n, String(g));
});

test('GPU indices in gres_detail: ranges, lists, typed, several; N/A and junk give none', () => {
  assert.equal(gpuIndicesInGres('gpu:4(IDX:0-3)'), [0, 1, 2, 3]);
  assert.equal(gpuIndicesInGres('gpu:h100:3(IDX:0,2-3)'), [0, 2, 3]);
  assert.equal(gpuIndicesInGres('gpu:a100:1(IDX:5),gpu:h100:1(IDX:1),shard:2(IDX:0)'), [1, 5]);
  assert.equal(gpuIndicesInGres('gpu:0(IDX:N/A)'), []);
  assert.equal(gpuIndicesInGres('gpu:1(IDX:0-99999)'), []);
  assert.is(gpuIndicesInGres('gpu:1(IDX:0-9999)').length, 4096);
  assert.equal(gpuIndicesInGres(undefined), []);
});

test('llmgw`s jobs by replica and rank: the newest of a name wins; ended states are told apart', () => {
  const m = llmgwJobs([
    { id: '7', name: 'llmgw/r1/0' },
    { id: '12', name: 'llmgw/r1/0' },
    { id: '9', name: 'llmgw/r1/1' },
    { id: '10', name: 'batch/x' },
  ]);
  assert.equal(
    [...m].map(([k, j]) => [k, j.id]),
    [
      ['r1/0', '12'],
      ['r1/1', '9'],
    ],
  );
  for (const s of ['completed', 'cancelled', 'failed', 'timeout', 'preempted', 'node_fail']) assert.ok(jobEnded(s), s);
  for (const s of ['pending', 'running', 'completing', 'suspended', 'configuring']) assert.not.ok(jobEnded(s), s);
});

test('job names: llmgw/<replica>/<rank> round-trips; anything else is not llmgw`s', () => {
  assert.is(jobName('m-abc12', 3), 'llmgw/m-abc12/3');
  assert.equal(parseJobName('llmgw/m-abc12/3'), { replica: 'm-abc12', rank: 3 });
  for (const n of ['llmgw/x', 'llmgw/a/b', 'batch/train', 'llmgw//0', 'llmgw/a/0/extra', 'xllmgw/a/0', 'llmgw/a b/0']) assert.is(parseJobName(n), null, n);
});

test('sizes are bounded: a reason is clipped and cleaned, too many nodes or jobs refuse the view, non-JSON is one clear error', () => {
  const long = JSON.stringify({
    nodes: [{ name: 'n', state: 'idle', state_flags: ['DRAIN'], reason: 'x'.repeat(5000) + '\n\u001b[31m', partitions: [], gres: '' }],
  });
  const [n] = parseSinfo(long);
  assert.is(n?.reason.length, 200);
  assert.ok(!/[\n\u001b]/.test(n?.reason ?? ''));
  assert.throws(
    () => parseSinfo(JSON.stringify({ nodes: Array.from({ length: 100_001 }, () => ({})) })),
    (e: unknown) => e instanceof SlurmParseError,
  );
  assert.throws(() => parseSqueue(JSON.stringify({ jobs: Array.from({ length: 200_001 }, () => 0) })), /more than 200000 jobs/);
  assert.throws(() => parseSinfo('sinfo: error: unrecognized option --json'), /is not JSON \(Slurm 22\.05 or later has --json\)/);
  assert.throws(() => parseReservations('ReservationName=r Nodes=n[0-99999999] State=ACTIVE\n'), /reservation r: Nodes=/);
  // A later Slurm's list-shaped state is read too.
  assert.equal(
    parseSinfo(JSON.stringify({ nodes: [{ name: 'n', state: ['IDLE', 'DRAIN'], reason: 'r', partitions: ['gpu'], gres: 'gpu:8' }] }))[0]?.state,
    'idle+drain',
  );
});

test.run();
