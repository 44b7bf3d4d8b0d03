// An ExecHandler that does what a node's login shell would with the configured
// commands: `<agent.command> report|apply` runs the real agent (in-process, with
// that node's own env: state directory, fake nvidia-smi), `<router.command> …`
// goes to the caller's router handler, anything else is "command not found".

import { runAgent } from '../agent/main.js';
import type { AgentEnv } from '../agent/env.js';
import type { ExecHandler, ExecResult } from './ssh-host.js';

export interface RouteOptions {
  /** cluster.yaml's agent.command, e.g. `llmgw agent`. */
  agentCommand: string;
  /** The agent's env on host `name` (LLMGW_STATE_DIR, LLMGW_NVIDIA_SMI, LLMGW_FAKE_GPUS, …). */
  agentEnv: (name: string) => AgentEnv;
  /** cluster.yaml's router.command, and what answers it on host `name`. */
  routerCommand?: string;
  router?: (name: string, subcommand: string, stdin: string) => Promise<ExecResult>;
}

function subcommandOf(command: string, prefix: string | undefined): string | null {
  if (prefix === undefined || !command.startsWith(prefix + ' ')) return null;
  return command.slice(prefix.length + 1).trim();
}

export function routeCommands(opts: RouteOptions): ExecHandler {
  return async ({ host, command, stdin }) => {
    const agentSub = subcommandOf(command, opts.agentCommand);
    if (agentSub !== null) return runAgent(agentSub, stdin, opts.agentEnv(host));
    const routerSub = subcommandOf(command, opts.routerCommand);
    if (routerSub !== null && opts.router) return opts.router(host, routerSub, stdin);
    return { stdout: '', stderr: `sh: 1: ${command.split(' ')[0] ?? ''}: not found\n`, code: 127 };
  };
}
