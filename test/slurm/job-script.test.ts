// Jobs mode's batch script and scancel (docs/slurm.md). Pure: the #SBATCH lines
// and the here-document are exact, values sbatch's lines may not carry are
// refused. Real: the script goes over SSH to the real `sbatch` on its stdin and
// the job runs with the GPUs Slurm chose; model args holding $(…), backticks,
// ${…}, quotes, a newline and the here-document's own end word reach the agent
// byte for byte as JSON and nothing in them ran; `scancel --full --signal=TERM`
// reaches the job's agent, the plain scancel ends it.
// Without Slurm installed the real half skips, saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobScript, JobScriptError, parseSbatchId, SBATCH_COMMAND, scancelArgv, type JobScriptInput } from '../../src/slurm/job-script.js';
import { tempDir } from '../gather/sim-helpers.js';
import { slurmAvailable, startSlurmCluster, waitFor, type SlurmCluster } from './cluster.js';
import { startSlurmSsh, type SlurmSsh } from './slurm-ssh.js';

const BASE: JobScriptInput = {
  replica: 'r-abc12',
  rank: 0,
  node: 'gpu-a01',
  gpus: 3,
  partition: 'gpu',
  agentCommand: 'llmgw agent',
  request: { replica: 'r-abc12', command: ['vllm', 'serve'] },
};

test('the script: #SBATCH lines for name, node, GPUs and partition, then exec of the agent with the request in a quoted here-document', () => {
  assert.is(
    jobScript(BASE),
    [
      '#!/bin/sh',
      '#SBATCH --job-name=llmgw/r-abc12/0',
      '#SBATCH --nodelist=gpu-a01',
      '#SBATCH --gres=gpu:3',
      '#SBATCH --partition=gpu',
      '#SBATCH --output=/dev/null',
      "exec llmgw agent job <<'LLMGW_REQ'",
      '{"replica":"r-abc12","command":["vllm","serve"]}',
      'LLMGW_REQ',
      '',
    ].join('\n'),
  );
});

test('account, qos and reservation get a line each only when set', () => {
  const lines = jobScript({ ...BASE, account: 'ml', qos: 'high', reservation: 'serve' })
    .split('\n')
    .filter((l) => l.startsWith('#SBATCH'));
  assert.equal(lines.slice(4, 7), ['#SBATCH --account=ml', '#SBATCH --qos=high', '#SBATCH --reservation=serve']);
  assert.is(jobScript({ ...BASE, qos: 'high' }).includes('--account'), false);
});

test('a value sbatch`s lines may not carry is refused before any script is made', () => {
  const bad: Partial<JobScriptInput>[] = [
    { node: 'gpu-a01\n#SBATCH --uid=0' },
    { node: 'a b' },
    { partition: 'gpu;x' },
    { account: '$(id)' },
    { qos: '' },
    { reservation: 'r\n' },
    { replica: 'r/1' },
    { gpus: 0 },
    { gpus: 1.5 },
    { rank: -1 },
    { agentCommand: 'llmgw agent\nrm -rf /' },
  ];
  for (const b of bad)
    assert.throws(
      () => jobScript({ ...BASE, ...b }),
      (e: unknown) => e instanceof JobScriptError,
      JSON.stringify(b),
    );
});

test('scancel: TERM to the whole job (--full reaches the batch script) first, then the plain cancel; ids are checked', () => {
  assert.equal(scancelArgv('42'), { term: ['scancel', '--full', '--signal=TERM', '42'], kill: ['scancel', '42'] });
  assert.throws(
    () => scancelArgv('42; rm -rf /'),
    (e: unknown) => e instanceof JobScriptError,
  );
  assert.is(parseSbatchId('1234\n'), '1234');
  assert.is(parseSbatchId('1234;cluster\n'), '1234');
  assert.is(parseSbatchId('Submitted batch job 1234\n'), null);
});

const HOSTILE = [
  '$(touch MARK/dollar)',
  '`touch MARK/backtick`',
  '${HOME}',
  "'; touch MARK/quote; '",
  'a\nLLMGW_REQ\ntouch MARK/heredoc',
  'LLMGW_REQ',
  '\\$x "dq"',
];

let cluster: SlurmCluster | null = null;
let link: SlurmSsh | null = null;
const tmp = tempDir('slurm-jobs');

if (!slurmAvailable()) {
  console.log('SKIP test/slurm/job-script (real sbatch): Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  const out = join(tmp.dir, 'out');
  const marks = join(tmp.dir, 'marks');
  const agent = join(tmp.dir, 'fake-agent');

  test.before(async () => {
    mkdirSync(out);
    mkdirSync(marks);
    // Stands in for `llmgw agent job`: records its argv, stdin and GPUs, then waits for TERM.
    writeFileSync(
      agent,
      [
        '#!/bin/sh',
        `D=${out}/$SLURM_JOB_ID`,
        'printf "%s\\n" "$@" > "$D.args"',
        'cat > "$D.req"',
        'echo "$CUDA_VISIBLE_DEVICES $SLURMD_NODENAME" > "$D.gpus"',
        'trap \'echo term > "$D.term"; exit 0\' TERM',
        'while :; do sleep 0.2; done',
        '',
      ].join('\n'),
    );
    chmodSync(agent, 0o755);
    cluster = await startSlurmCluster([{ name: 'gpu-a01', gpus: 8 }]);
    link = await startSlurmSsh(cluster, join(tmp.dir, 'keys'));
  });

  test.after(async () => {
    await link?.close();
    await cluster?.stop();
    rmSync(tmp.dir, { recursive: true, force: true });
  });

  const readOut = (file: string): string | undefined => (existsSync(join(out, file)) ? readFileSync(join(out, file), 'utf8') : undefined);

  test('over SSH to the real sbatch on stdin: the job runs under llmgw`s name with the GPUs asked, and no repo value was expanded', async () => {
    const request = {
      replica: 'r-abc12',
      command: ['vllm', 'serve', ...HOSTILE.map((a) => a.replaceAll('MARK', marks))],
      env: { X: '$(touch ' + marks + '/env)' },
    };
    const script = jobScript({ ...BASE, agentCommand: agent, request });
    const l = link!;
    const id = parseSbatchId(await l.transport.run(l.target, SBATCH_COMMAND, script));
    assert.ok(id !== null);
    const gpus = await waitFor('the job`s agent to start', () => readOut(`${id}.gpus`));
    // Slurm chose the indices: three of them, on the node asked for.
    assert.match(gpus.trim(), /^[0-7],[0-7],[0-7] gpu-a01$/);
    assert.is(readOut(`${id}.args`), 'job\n');
    const req = await waitFor('the request', () => {
      const t = readOut(`${id}.req`);
      return t?.endsWith('\n') ? t : undefined;
    });
    assert.is(req, JSON.stringify(request) + '\n');
    assert.equal(JSON.parse(req), request);
    const squeue = JSON.parse(cluster!.run('squeue', ['--json'])) as { jobs: { job_id: number; name: string; tres_per_node: string; job_state: string }[] };
    const job = squeue.jobs.find((j) => String(j.job_id) === id);
    assert.equal([job?.name, job?.tres_per_node, job?.job_state], ['llmgw/r-abc12/0', 'gres:gpu:3', 'RUNNING']);
    for (const m of ['dollar', 'backtick', 'quote', 'heredoc', 'env']) assert.is(existsSync(join(marks, m)), false, `${m} ran`);

    // The stop: TERM reaches the agent, then the plain scancel.
    const { term, kill } = scancelArgv(id);
    await l.transport.run(l.target, term.join(' '), '');
    assert.is((await waitFor('TERM to reach the agent', () => readOut(`${id}.term`))).trim(), 'term');
    await l.transport.run(l.target, kill.join(' '), '');
    await waitFor('the job to end', () => {
      const jobs = (JSON.parse(cluster!.run('squeue', ['--json'])) as { jobs: { job_id: number; job_state: string }[] }).jobs;
      const s = jobs.find((j) => String(j.job_id) === id)?.job_state;
      return s !== 'RUNNING' && s !== 'PENDING' ? true : undefined;
    });
  });
}

test.run();
