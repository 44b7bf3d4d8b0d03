#!/usr/bin/env node
// The llmgw command. Kept tiny so `llmgw --help` starts fast: each command's
// module (and whatever heavy library it needs: ssh2, yaml) is imported
// only when that command runs.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CommandRun, Io } from './io.js';
import { reportError } from './report-error.js';

interface CommandEntry {
  summary: string;
  load: () => Promise<{ run: CommandRun }>;
  /** Its subcommands, each of which answers `--help` too. */
  subcommands?: readonly string[];
}

const COMMANDS: Record<string, CommandEntry> = {
  validate: { summary: 'check cluster.yaml and models.yaml', load: () => import('./commands/validate.js') },
  gather: { summary: 'SSH to every node and router; print or write the snapshot', load: () => import('./commands/gather.js') },
  status: { summary: 'the fleet summary (text, json, or the STATUS.md markdown)', load: () => import('./commands/status.js') },
  plan: { summary: 'the dry run: what would start and stop, and how STATUS.md would change', load: () => import('./commands/plan.js') },
  apply: { summary: 'gather, plan, confirm and apply', load: () => import('./commands/apply.js') },
  reconcile: { summary: 'one GitOps tick: pull, plan, apply, commit and push STATUS.md', load: () => import('./commands/reconcile.js') },
  run: { summary: 'tick on a cron schedule (and on config changes with --watch)', load: () => import('./commands/run.js') },
  agent: {
    summary: 'the reference node agent: agent report | agent apply | agent job',
    load: () => import('./commands/agent.js'),
    subcommands: ['report', 'apply', 'job'],
  },
  router: {
    summary: 'the reference router: router serve | usage | endpoints',
    load: () => import('./commands/router.js'),
    subcommands: ['serve', 'usage', 'endpoints'],
  },
  report: { summary: 'GPU-hours per model and for the fleet, from the committed history', load: () => import('./commands/report.js') },
  console: { summary: 'a read-only web page of the fleet, served from a checkout', load: () => import('./commands/console.js') },
  demo: { summary: 'a whole simulated fleet on this machine, reconciled', load: () => import('./commands/demo.js') },
};

/** Every command and its subcommands, e.g. for a test that asks each for --help. */
export function commandList(): { name: string; subcommands: readonly string[] }[] {
  return Object.entries(COMMANDS).map(([name, c]) => ({ name, subcommands: c.subcommands ?? [] }));
}

function version(): string {
  const pkgPath = fileURLToPath(new URL('../../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
}

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'llmgw: the declarative GitOps reconciler for GPU fleets serving LLMs',
    '',
    'Usage: llmgw <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Common options:',
    '  --repo DIR   the config repo (default .)',
    '  --debug      print stack traces on errors',
    '  --help       help for a command (llmgw <command> --help)',
    '  --version    print the version',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: Io): Promise<number> {
  const debug = argv.includes('--debug');
  const args = argv.filter((a) => a !== '--debug');
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(version() + '\n');
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr.write(`llmgw: unknown command '${name}' (see llmgw --help)\n`);
    return 1;
  }
  try {
    const mod = await entry.load();
    return await mod.run(rest, { ...io, debug });
  } catch (err) {
    return reportError(err, { ...io, debug }, name);
  }
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1]);
if (isEntry) {
  // `llmgw demo | head`: a reader that goes away is not an error worth a crash,
  // and the command must still get to clean up what it started.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
    });
  }
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    debug: false,
  });
  process.exitCode = code;
}
