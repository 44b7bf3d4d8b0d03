// `llmgw gather [--repo DIR] [--out FILE]` (docs/protocol.md, docs/commands.md): SSH to every node
// and router and print (or write) the snapshot, then one summary line on
// stderr. Unreachable hosts are part of the answer, so some down still exit 0;
// none answering at all (no key, wrong user, no network) is 1, like a config
// that cannot be loaded.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { strictExceptNotify } from '../../config/env-vars.js';
import { loadConfig } from '../../config/load-config.js';
import { UsageError, formatProblem } from '../../errors.js';
import { gatherSummary, noNodeAnswered } from '../../gather/summary.js';
import { stableJson, writeFileAtomic } from '../../util/fs.js';
import { observe } from '../../tick/observe.js';
import { gatherLive, resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';
import { errnoCode } from '../../util/errno.js';

const HELP = `Usage: llmgw gather [--repo DIR] [--out FILE]

Connects to every node and router of cluster.yaml over SSH (ssh.concurrency at
a time), asks each agent for its report and each router for its usage, and
prints the snapshot as JSON, or writes it to FILE (atomically). A host that
cannot be reached is listed with its error and its reason class (timeout,
refused, auth, host-key-changed, host-key-unknown, bad-reply, command-failed,
network); unreachableSince and lastReport are carried over from the repo's
.llmgw/observed.json and .llmgw/state.json. On a terminal, progress is shown
on stderr; the last line on stderr always sums up who answered, e.g.
  llmgw gather: 6 of 8 nodes answered; unreachable: 2 auth (gpu-a[03-04])

Exit status: 0 gathered (even with some hosts unreachable), 1 no node answered,
or a config error. See docs/commands.md.
`;

interface Options {
  repo: string;
  out: string | undefined;
  help: boolean;
}

function options(argv: string[]): Options {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string', default: '.' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    return { repo: values.repo, out: values.out, help: values.help };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export async function run(argv: string[], io: Io): Promise<number> {
  const opts = options(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const dir = await resolveRepoDir(io, opts.repo);
  const loaded = await loadConfig(dir, { env: io.env, strictEnv: strictExceptNotify, displayDir: opts.repo });
  // Config warnings (no webhooks, …) are `llmgw validate`'s to print; gather only observes.
  if (!loaded.ok) {
    for (const e of loaded.errors) io.stderr.write(formatProblem(e) + '\n');
    return 1;
  }
  // The tick's own observe phase, and nothing after it.
  const live = await gatherLive(loaded.config, dir, io);
  const { snapshot } = await observe(loaded.config, { ...live.gather, state: live.state, at: new Date() }).finally(live.done);
  const text = stableJson(snapshot);
  if (opts.out === undefined) {
    io.stdout.write(text);
  } else {
    try {
      await writeFileAtomic(resolve(io.cwd, opts.out), text);
    } catch (err) {
      io.stderr.write(`llmgw gather: cannot write ${opts.out} (${errnoCode(err) ?? (err as Error).message})\n`);
      return 1;
    }
  }
  io.stderr.write(gatherSummary(snapshot) + '\n');
  return noNodeAnswered(snapshot) ? 1 : 0;
}
