// The entry of dist/llmgw-node.mjs, the one-file build for GPU nodes and router
// hosts (docs/operations.md): only `agent` and `router`, the two commands the
// reconciler runs there over SSH. Everything else (ssh2, the git layer, yaml, the
// planner) stays out of the file, so a node needs nothing but `node` and starts
// fast: the reconciler pays this start once per node per tick.

import type { CommandRun, Io } from './io.js';
import { reportError } from './report-error.js';

// Loaded on use: in the bundle each becomes code that runs only when called, so
// `agent report` does not pay for setting up the router (its HTTP client, its
// metrics) and the other way round.
const COMMANDS: Record<string, () => Promise<{ run: CommandRun }>> = {
  agent: () => import('./commands/agent.js'),
  router: () => import('./commands/router.js'),
};

function help(version: string): string {
  return [
    `llmgw-node ${version}: the llmgw agent and router in one file (docs/protocol.md)`,
    '',
    'Usage: node llmgw-node.mjs <command> [options]',
    '',
    'Commands:',
    '  agent   the reference node agent: agent report | apply | job (JSON on stdin)',
    '  router  the reference router: router serve | usage | endpoints',
    '',
    'The reconciler and every other command are in the llmgw package (docs/operations.md).',
    '',
  ].join('\n');
}

export async function nodeMain(argv: string[], io: Io, version: string): Promise<number> {
  const debug = argv.includes('--debug');
  const [name, ...rest] = argv.filter((a) => a !== '--debug');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help(version));
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(version + '\n');
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr.write(`llmgw: '${name}' is not in llmgw-node.mjs, which has only agent and router (see --help)\n`);
    return 1;
  }
  try {
    const { run } = await load();
    return await run(rest, { ...io, debug });
  } catch (err) {
    return reportError(err, { ...io, debug }, name);
  }
}

/** Runs nodeMain on this process: what the bundle's entry calls. */
export async function runNodeMain(version: string): Promise<void> {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
    });
  }
  process.exitCode = await nodeMain(
    process.argv.slice(2),
    {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
      cwd: process.cwd(),
      debug: false,
    },
    version,
  );
}
