// Jobs mode's commands (docs/slurm.md): the batch script one rank runs as, and
// the scancel argv of a stop. The script reaches `sbatch` on its stdin: its
// `#SBATCH` lines are read by sbatch, not a shell, and hold only values checked
// here; the start request travels as JSON in a quoted here-document
// (`<<'LLMGW_REQ'`), which no shell expands. JSON.stringify writes one line
// with every newline escaped, so no line of it can end the here-document.

import { jobName } from './job-name.js';

/** What sbatch's command line may hold: the pattern cluster.yaml's Slurm names are validated against too. */
const SLURM_WORD = /^[A-Za-z0-9._-]{1,200}$/;
const HEREDOC_END = 'LLMGW_REQ';

export class JobScriptError extends Error {
  override name = 'JobScriptError';
}

export interface JobScriptInput {
  replica: string;
  rank: number;
  /** Slurm's name of the node (`--nodelist`). */
  node: string;
  gpus: number;
  partition: string;
  account?: string;
  qos?: string;
  reservation?: string;
  /** cluster.yaml `agent.command`: the agent, as it is run over SSH. */
  agentCommand: string;
  /** The start request of `agent apply` (docs/protocol.md), for this rank. */
  request: unknown;
}

function word(what: string, v: string): string {
  if (!SLURM_WORD.test(v)) throw new JobScriptError(`${what} ${JSON.stringify(v)} is not a Slurm name (letters, digits, ".", "_" or "-")`);
  return v;
}

/** The whole script, `#!/bin/sh` first; throws JobScriptError on a value sbatch's lines may not carry. */
export function jobScript(input: JobScriptInput): string {
  if (!Number.isInteger(input.rank) || input.rank < 0 || input.rank > 9999) throw new JobScriptError(`rank ${input.rank} is not 0..9999`);
  if (!Number.isInteger(input.gpus) || input.gpus < 1 || input.gpus > 1024) throw new JobScriptError(`gpus ${input.gpus} is not 1..1024`);
  if (/[\r\n]/.test(input.agentCommand) || input.agentCommand.trim() === '') throw new JobScriptError('agent.command must be one line');
  // `undefined` (a function, say) stringifies to undefined, whatever the types say.
  const json = JSON.stringify(input.request) as string | undefined;
  if (json === undefined || json.includes('\n')) throw new JobScriptError('the start request is not JSON on one line');
  const lines = [
    '#!/bin/sh',
    `#SBATCH --job-name=${jobName(word('replica', input.replica), input.rank)}`,
    `#SBATCH --nodelist=${word('node', input.node)}`,
    `#SBATCH --gres=gpu:${input.gpus}`,
    `#SBATCH --partition=${word('partition', input.partition)}`,
    ...(['account', 'qos', 'reservation'] as const).flatMap((k) => {
      const v = input[k];
      return v === undefined ? [] : [`#SBATCH --${k}=${word(k, v)}`];
    }),
    // The agent keeps the engine's log in its state directory: Slurm's slurm-<id>.out would pile up in the home directory.
    '#SBATCH --output=/dev/null',
    `exec ${input.agentCommand} job <<'${HEREDOC_END}'`,
    json,
    HEREDOC_END,
    '',
  ];
  return lines.join('\n');
}

/** The command line of the submission: the script comes on stdin, `--parsable` prints the job id alone. */
export const SBATCH_COMMAND = 'sbatch --parsable';

/** The job id from `sbatch --parsable`'s output (`123` or `123;cluster`), or null. */
export function parseSbatchId(stdout: string): string | null {
  const m = /^([0-9]{1,12})(?:;[A-Za-z0-9._-]+)?$/.exec(stdout.trim());
  return m ? (m[1] ?? null) : null;
}

/**
 * The two scancel argvs of a stop, after its drain: TERM first, then
 * (after stopGrace) the plain cancel. `--full` is needed for the TERM: without
 * it Slurm signals only a job's steps, and llmgw's job has none but its batch
 * script, which execs the agent (measured on 22.05: no signal arrives).
 * Every word is checked, so `argv.join(' ')` is the SSH command line.
 */
export function scancelArgv(jobId: string): { term: string[]; kill: string[] } {
  if (!/^[0-9]{1,12}$/.test(jobId)) throw new JobScriptError(`job id ${JSON.stringify(jobId)} is not a Slurm job id`);
  return { term: ['scancel', '--full', '--signal=TERM', jobId], kill: ['scancel', jobId] };
}
