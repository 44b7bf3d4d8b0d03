// `llmgw validate [--repo DIR]` (docs/config.md): every problem of cluster.yaml and
// models.yaml, one line each, file names as the user gave the repo.

import { readObservedGpus } from '../../store/observed-gpus.js';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { UsageError, formatProblem } from '../../errors.js';
import { escapeTerminal } from '../../text/terminal-text.js';
import { resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';

const HELP = `Usage: llmgw validate [--repo DIR]

Checks cluster.yaml and models.yaml of the config repo (docs/config.md): YAML
syntax, the schemas of schemas/, and their meaning (declared fabrics and
engines, duplicate names after hostlist expansion, storage declared twice,
model args against the engine's allowArgs). Prints each problem as
file:line:col: path: message, control characters escaped.

Warnings (exit status unchanged): an unset \${VAR}; an engine without
allowArgs; a model gpuClass that no GPU of the committed snapshot
(.llmgw/observed.json) has.

Exit status: 0 valid (warnings allowed), 1 invalid.
`;

function options(argv: string[]): { repo: string; help: boolean } {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { repo: { type: 'string', default: '.' }, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals: false,
    });
    return { repo: values.repo, help: values.help };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export async function run(argv: string[], io: Io): Promise<number> {
  const { repo, help } = options(argv);
  if (help) {
    io.stdout.write(HELP);
    return 0;
  }
  const dir = await resolveRepoDir(io, repo);
  // The hints' snapshot is read by the store and handed to the loader as data.
  const result = await loadConfig(dir, { env: io.env, displayDir: repo, advise: true, observed: await readObservedGpus(dir, repo) });
  // The loader escapes what it quotes; escaping again here costs nothing and keeps this output safe on its own.
  for (const w of result.warnings) io.stderr.write(`warning: ${escapeTerminal(formatProblem(w))}\n`);
  if (!result.ok) {
    for (const e of result.errors) io.stderr.write(escapeTerminal(formatProblem(e)) + '\n');
    return 1;
  }
  const { cluster, models } = result.config;
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  io.stdout.write(`${repo === '.' ? 'config' : escapeTerminal(repo)}: valid (${count(cluster.nodes.length, 'node')}, ${count(models.length, 'model')})\n`);
  return 0;
}
