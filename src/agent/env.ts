// The agent's environment, passed in whole: the agent never reads process.env,
// so a simulated fleet can run many agents in one process, each with its own.

import { join } from 'node:path';

export type AgentEnv = Record<string, string | undefined>;

export const DEFAULT_STATE_DIR = '/var/lib/llmgw';

export function stateDir(env: AgentEnv): string {
  return env.LLMGW_STATE_DIR || DEFAULT_STATE_DIR;
}

/** Where the record of each started replica lives (written only by apply). */
export function replicasDir(env: AgentEnv): string {
  return join(stateDir(env), 'replicas');
}

/** What report has seen of each replica's health (written only by report). */
export function healthDir(env: AgentEnv): string {
  return join(stateDir(env), 'health');
}

/** Each replica's stdout and stderr. */
export function logsDir(env: AgentEnv): string {
  return join(stateDir(env), 'logs');
}

/** The last metrics sample of each replica (written only by report). */
export function loadDir(env: AgentEnv): string {
  return join(stateDir(env), 'load');
}
