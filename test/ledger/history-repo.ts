// A git repo with a scripted history, written in one `git fast-import`: the
// e2e test of `llmgw report` and bench/report.ts (a year of hourly ticks,
// ~8,800 commits, in a second or two instead of minutes of `git commit`).

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { emptyState } from '../../src/types/state.js';

export interface ScriptedCommit {
  /** ISO: author and committer time. */
  time: string;
  /** Author and committer; a tick's is llmgw@localhost. */
  email: string;
  message: string;
  /** path -> content, written on top of the previous commit's tree. */
  files: Record<string, string>;
}

export const TICK_EMAIL = 'llmgw@localhost';

const env = (home: string) => ({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' });

/** `dir` becomes a checkout of branch main holding `commits`, oldest first. */
export function writeHistory(dir: string, commits: readonly ScriptedCommit[]): void {
  mkdirSync(dir, { recursive: true });
  const e = env(dir);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', dir], { env: e });
  const parts: Buffer[] = [];
  const data = (text: string) => {
    const b = Buffer.from(text, 'utf8');
    parts.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
  };
  for (const c of commits) {
    const who = `${c.email === TICK_EMAIL ? 'llmgw' : 'Person'} <${c.email}> ${Math.floor(Date.parse(c.time) / 1000)} +0000`;
    parts.push(Buffer.from(`commit refs/heads/main\nauthor ${who}\ncommitter ${who}\n`));
    data(c.message);
    for (const [path, text] of Object.entries(c.files)) {
      parts.push(Buffer.from(`M 100644 inline ${path}\n`));
      data(text);
    }
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, env: e, input: Buffer.concat(parts), maxBuffer: 1 << 30 });
  execFileSync('git', ['reset', '--quiet', '--hard', 'main'], { cwd: dir, env: e });
}

/** One scripted llmgw tick at `time`: its STATUS.md (headed `label`), the snapshot of `nodes`, an empty state. */
export function tickCommit(time: string, nodes: object[], label: string | number): ScriptedCommit {
  return {
    time,
    email: TICK_EMAIL,
    message: 'llmgw: status',
    files: {
      'STATUS.md': `# ${label}\n`,
      '.llmgw/observed.json': JSON.stringify({ version: 1, observedAt: time, nodes, routers: [] }),
      '.llmgw/state.json': JSON.stringify(emptyState()),
    },
  };
}
