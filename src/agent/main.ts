// The reference node agent (docs/protocol.md) as one function of (subcommand, stdin,
// env), so the simulated fleet runs the real agent in-process, one env per node.
// It never throws: a bad request is exit 1 with one line on stderr.

import { apply } from './apply.js';
import { runJob } from './job.js';
import type { AgentEnv } from './env.js';
import { report } from './report.js';
import { checkApplyRequest, checkReportRequest } from './request.js';

export interface AgentOutput {
  stdout: string;
  stderr: string;
  code: number;
}

export const AGENT_SUBCOMMANDS = ['report', 'apply'] as const;

function failure(message: string): AgentOutput {
  return { stdout: '', stderr: `llmgw agent: ${message.replace(/\s*\n\s*/g, ' ')}\n`, code: 1 };
}

export async function runAgent(subcommand: string, input: string, env: AgentEnv): Promise<AgentOutput> {
  try {
    if (subcommand === 'report') {
      const req = checkReportRequest(input);
      if (!req.ok) return failure(`bad report request: ${req.error}`);
      return { stdout: JSON.stringify(await report(req.value, env)) + '\n', stderr: '', code: 0 };
    }
    if (subcommand === 'apply') {
      const req = checkApplyRequest(input);
      if (!req.ok) return failure(`bad apply request: ${req.error}`);
      return { stdout: JSON.stringify(await apply(req.value, env)) + '\n', stderr: '', code: 0 };
    }
    if (subcommand === 'job') return await runJob(input, env); // docs/slurm.md: runs the engine until it ends
    return failure(`unknown subcommand ${JSON.stringify(subcommand)} (expected ${AGENT_SUBCOMMANDS.join(' or ')})`);
  } catch (err) {
    return failure(`${subcommand} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
