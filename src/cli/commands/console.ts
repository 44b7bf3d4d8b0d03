// `llmgw console [--listen 127.0.0.1:8080] [--repo DIR]` (docs/commands.md):
// the fleet as a read-only web page, served from the reconciler's checkout or
// any clone. See src/console/.

import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { isLoopback, startConsole, type Listen } from '../../console/server.js';
import { resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';

const HELP = `Usage: llmgw console [--listen HOST:PORT] [--repo DIR]

Serves the fleet as a read-only web page (docs/status.md): the Overview
(everything STATUS.md says: capacity, free whole nodes per fabric, models,
what cannot be placed, idle replicas, holdings, what needs attention), a page
per model and per node, and the last ticks and plans from git history. It
reads the checkout's cluster.yaml, models.yaml and .llmgw/ exactly as
\`llmgw status --observed .llmgw/observed.json\` does, and the page reloads
itself when they change (a new tick, a git pull). Read-only: GET and HEAD.

  --listen HOST:PORT   where to serve (default 127.0.0.1:8080; :PORT is every
                       interface: the page has no login, put a proxy with one in front)
  --repo DIR           the config repo checkout (default .)
`;

/** `HOST:PORT`, `[v6]:PORT`, or `:PORT` (every interface). */
export function parseConsoleListen(text: string): Listen {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--listen must be HOST:PORT (e.g. 127.0.0.1:8080), got '${text}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export async function run(argv: string[], io: Io): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        listen: { type: 'string', default: '127.0.0.1:8080' },
        repo: { type: 'string', default: '.' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const listen = parseConsoleListen(values.listen);
  const repo = values.repo;
  const dir = await resolveRepoDir(io, repo);
  const server = await startConsole({ dir, displayDir: repo, listen, log: (l) => void io.stderr.write(l + '\n') });
  io.stderr.write(`llmgw console: serving ${repo} read-only at ${server.url}/ (Ctrl-C stops)\n`);
  if (!isLoopback(listen.host)) io.stderr.write(`warning: --listen ${values.listen}: the console has no login and is reachable beyond this machine\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
