// `llmgw agent report|apply`: the reference node agent, run over SSH by the
// reconciler with one JSON request on stdin and one JSON reply on stdout.

import { dieOf } from '../../agent/job-exit.js';
import type { JobOutcome } from '../../agent/job.js';
import { MAX_JOB_REQUEST_BYTES } from '../../agent/job-request.js';
import { runAgent } from '../../agent/main.js';
import { UsageError } from '../../errors.js';
import { readAll } from '../../util/read-all.js';
import type { Io } from '../io.js';
import { withoutRepoOption } from '../repo-options.js';

const HELP = `Usage: llmgw agent report|apply|job < request.json

The reference node agent (docs/protocol.md): reads one JSON request on stdin and
writes one JSON reply on stdout.
  report   GPUs (nvidia-smi), replicas and their state, weights on storage
  apply    start and stop replicas (detached; systemd-run when available)
  job      inside a Slurm batch job: record one replica, run its engine (docs/slurm.md)

Environment:
  LLMGW_STATE_DIR          replica records and logs (default /var/lib/llmgw)
  LLMGW_NVIDIA_SMI         the nvidia-smi binary (default: nvidia-smi on PATH)
  LLMGW_KERNEL_LOG         Xids from this file or command (default: journalctl -k, else dmesg)
  LLMGW_AGENT_SUPERVISOR   process | systemd (default: systemd when booted with it and root)
  LLMGW_AGENT_STOP_TIMEOUT seconds between SIGTERM and SIGKILL on stop (default 10)
`;

const SUB_HELP: Record<'report' | 'apply' | 'job', string> = {
  report: `Usage: llmgw agent report < request.json

Reads {"version":1,"node":…,"storage":[…],"weights":[…]} on stdin and prints
this node's report as one JSON line: its GPUs (nvidia-smi), the replicas it
started and their state, and which of the weights each storage path holds.
The wire format is in docs/protocol.md; the environment is as for llmgw agent --help.
`,
  apply: `Usage: llmgw agent apply < request.json

Reads {"version":1,"node":…,"start":[…],"stop":[…]} on stdin, stops and starts
replicas (stops first, each SIGTERM then SIGKILL after its grace), and prints
one result per entry as one JSON line. The wire format is in docs/protocol.md;
the environment is as for llmgw agent --help.
`,
  job: `Usage: llmgw agent job < start.json

What the batch script of a Slurm job in jobs mode execs (docs/slurm.md). Reads
one start request (an \`agent apply\` start entry with the lease beside it) on
stdin, refuses a stale lease epoch (\`fenced: epoch N < M\` on stderr, exit 1),
records the replica with the GPUs the job holds (SLURM_JOB_GPUS, else
CUDA_VISIBLE_DEVICES) and the job id (SLURM_JOB_ID), then runs the engine with
CUDA_VISIBLE_DEVICES set to them, forwards SIGTERM and SIGINT to it, and exits
as it exits. The environment is as for llmgw agent --help.
`,
};

const isHelp = (a: string | undefined) => a === '--help' || a === '-h';

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = withoutRepoOption(argv);
  if (isHelp(sub)) {
    io.stdout.write(HELP);
    return 0;
  }
  if ((sub === 'report' || sub === 'apply' || sub === 'job') && rest.some(isHelp)) {
    io.stdout.write(SUB_HELP[sub]);
    return 0;
  }
  if (sub !== 'report' && sub !== 'apply' && sub !== 'job')
    throw new UsageError(`expected 'agent report', 'agent apply' or 'agent job' (see llmgw agent --help)`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}: the request is read from stdin`);
  const out = await runAgent(sub, await readAll(io.stdin, sub === 'job' ? MAX_JOB_REQUEST_BYTES : undefined), io.env);
  io.stdout.write(out.stdout);
  io.stderr.write(out.stderr);
  // `agent job` stands in for an exec: an engine killed by a signal kills the job's process the same way.
  const signal = (out as JobOutcome).signal;
  if (signal !== undefined && io.stdin === process.stdin) dieOf(signal);
  return out.code;
}
