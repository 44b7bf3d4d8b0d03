// Hostile git contents (docs/security.md): seeded commits whose cluster.yaml,
// models.yaml, STATUS.md, .llmgw/ and its files are symbolic links (to a
// secret outside the repo, to /etc/passwd, to themselves, to a directory),
// submodules, directories, binary, huge, NUL-filled, invalid UTF-8 or damaged
// JSON, beside files with odd names (control characters, newlines, a leading
// `-`, 255 bytes). Each commit is read the two ways llmgw reads a repo:
// as the base of a PR's plan (`llmgw plan --base <commit>`, from git objects)
// and as a checkout the tick acts on (the committed tree and the files on
// disk). Every outcome is a plan or one clear error; nothing from outside
// the repo is read; no control character is printed.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as plan } from '../../src/cli/commands/plan.js';
import { reportError } from '../../src/cli/report-error.js';
import { branchConfig } from '../../src/tick/branch-config.js';
import { formatProblem } from '../../src/errors.js';
import { previousRun } from '../../src/store/read.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { escapeTerminal } from '../../src/text/terminal-text.js';
import { tempDir } from '../gather/sim-helpers.js';
import { captureIo } from '../helpers/io.js';
import { CANARY, leaksInAll } from '../helpers/leak-check.js';
import { COUNT, SEED, hash, mutateJson, mutateText, rng, rssGrowthMiB, type Rng } from './generate.js';

const demo = (f: string) => readFileSync(fileURLToPath(new URL(`../../../examples/demo/${f}`, import.meta.url)));
const tmp = tempDir('hostile-git');
const outside = join(tmp.dir, 'outside');
const SECRET_FILE = join(outside, 'secret');
const repoDir = join(tmp.dir, 'repo');
const checkout = join(tmp.dir, 'checkout');
/** RSS a run may add, in MiB: a 4 MiB blob read whole a few times, and nothing kept. */
const MEMORY_BOUND_MIB = 512;
const SNAPSHOT = JSON.parse(demo('.llmgw/observed.json').toString('utf8')) as unknown;

type Entry = { mode: '100644' | '100755' | '120000'; data: Buffer } | { mode: '160000'; sha: string };

const PATHS = ['cluster.yaml', 'models.yaml', 'STATUS.md', '.llmgw', '.llmgw/observed.json', '.llmgw/state.json'];

function content(r: Rng, path: string): Buffer {
  switch (r.int(9)) {
    case 0:
      return Buffer.from(Array.from({ length: r.pick([1, 100, 100_000]) }, () => r.int(256)));
    case 1:
      return Buffer.alloc(r.pick([0, 1, 4097]), 0);
    case 2:
      // Past the 4 MiB a config file may be; rarely, as it is costly to check out.
      return r.chance(0.25) ? Buffer.alloc(4 * 1024 * 1024 + 1, 'x') : Buffer.alloc(70_000, 'y');
    case 3:
      return Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]);
    case 4:
      return Buffer.from(`\x1b]0;pwned\x07\r\x1b[2J${'['.repeat(r.pick([1, 100_000]))}`);
    case 5:
      return Buffer.from(JSON.stringify(mutateJson(SNAPSHOT, r)));
    case 6:
      return Buffer.from(mutateText(JSON.stringify({ version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [] }), r));
    default:
      return path.endsWith('.yaml') ? Buffer.from(mutateText(demo(path).toString('utf8'), r)) : Buffer.from('# Fleet\n');
  }
}

function entry(r: Rng, path: string): Entry | null {
  switch (r.int(6)) {
    case 0:
      return {
        mode: '120000',
        data: Buffer.from(r.pick([SECRET_FILE, '/etc/passwd', path, outside, '../outside/secret', '.', 'STATUS.md', '/proc/self/environ'])),
      };
    case 1:
      return { mode: '160000', sha: '0123456789abcdef0123456789abcdef01234567' };
    case 2:
      return null;
    default:
      return { mode: r.chance(0.1) ? '100755' : '100644', data: content(r, path) };
  }
}

/** One commit's tree: the demo's config, some of llmgw's paths made hostile, and files with odd names. */
function tree(r: Rng): Map<string, Entry> {
  const out = new Map<string, Entry>([
    ['cluster.yaml', { mode: '100644', data: demo('cluster.yaml') }],
    ['models.yaml', { mode: '100644', data: demo('models.yaml') }],
    ['STATUS.md', { mode: '100644', data: demo('STATUS.md') }],
    ['.llmgw/observed.json', { mode: '100644', data: demo('.llmgw/observed.json') }],
  ]);
  const n = 1 + r.int(3);
  for (let k = 0; k < n; k++) {
    const path = r.pick(PATHS);
    const e = entry(r, path);
    if (path === '.llmgw') for (const p of [...out.keys()]) if (p.startsWith('.llmgw/')) out.delete(p);
    if (e === null) out.delete(path);
    else {
      // A file where a directory was, or the reverse: the one that is set wins.
      for (const p of [...out.keys()]) if (p.startsWith(`${path}/`) || path.startsWith(`${p}/`)) out.delete(p);
      out.set(path, e);
    }
    if (path.startsWith('STATUS.md') && r.chance(0.2)) {
      out.delete('STATUS.md');
      out.set('STATUS.md/inner', { mode: '100644', data: Buffer.from('x') });
    }
  }
  if (r.chance(0.5)) {
    const name = r.pick(['\x1b[2J', 'a\nb', '-rf', 'x'.repeat(255), 'üñí\u202ecode', ' space ', '.llmgw/\x07bell', 'deep/'.repeat(50) + 'f']);
    out.set(name, { mode: '100644', data: Buffer.from(`odd\x1b[31m${name}`) });
  }
  return out;
}

/** A path as fast-import takes it: C-quoted, so a newline or a control character is one path. */
function quote(path: string): string {
  return `"${[...Buffer.from(path)].map((b) => (b === 0x22 || b === 0x5c ? `\\${String.fromCharCode(b)}` : b < 0x20 || b > 0x7e ? `\\${b.toString(8).padStart(3, '0')}` : String.fromCharCode(b))).join('')}"`;
}

function fastImport(trees: Map<string, Entry>[]): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s));
  trees.forEach((t, i) => {
    text(`commit refs/heads/v${i}\ncommitter Person <p@example.com> 1764403200 +0000\ndata 8\nvariant\n`);
    for (const [path, e] of t) {
      if (e.mode === '160000') {
        text(`M 160000 ${e.sha} ${quote(path)}\n`);
        continue;
      }
      text(`M ${e.mode} inline ${quote(path)}\ndata ${e.data.length}\n`);
      parts.push(e.data);
      text('\n');
    }
    text('\n');
  });
  return Buffer.concat(parts);
}

test.before(() => {
  mkdirSync(outside, { recursive: true });
  writeFileSync(SECRET_FILE, `PRIVATE KEY ${CANARY}\n`);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
  mkdirSync(repoDir);
  git(repoDir, 'init', '--quiet', '--initial-branch=main');
  for (const f of ['cluster.yaml', 'models.yaml']) writeFileSync(join(repoDir, f), demo(f));
  git(repoDir, 'add', '-A');
  git(repoDir, 'commit', '--quiet', '-m', 'a valid branch');
  const r = rng(SEED ^ hash('git contents'));
  const imported = spawnSync('git', ['fast-import', '--quiet'], { cwd: repoDir, input: fastImport(Array.from({ length: COUNT }, () => tree(r))) });
  if (imported.status !== 0) throw new Error(`git fast-import: ${imported.stderr.toString()}`);
  git(repoDir, 'worktree', 'add', '--quiet', '--detach', checkout, 'main');
});
test.after(() => tmp.remove());

test(`${COUNT} hostile commits as the base of a PR's plan: a plan or one error line each, nothing read through a link, nothing raw printed`, async () => {
  const outcomes = new Map<number, number>();
  const rss = process.memoryUsage().rss;
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      const i = next++;
      const c = captureIo({ cwd: tmp.dir, env: { HOME: tmp.dir, PATH: process.env.PATH } });
      let code: number;
      try {
        code = await plan(['--repo', 'repo', '--base', `v${i}`, '--format', 'text', '--now', '2026-11-29T08:00:00Z'], c.io);
      } catch (err) {
        code = reportError(err, c.io, 'plan');
      }
      const where = `git variant v${i} of seed ${SEED} (LLMGW_HOSTILE_SEED=${SEED} reproduces it)`;
      const leaks = leaksInAll({ stdout: c.out(), stderr: c.err() });
      assert.equal(leaks, [], `${where}: ${leaks.join('; ')}`);
      assert.not.match(c.err(), /internal error/, `${where}: ${escapeTerminal(c.err())}`);
      if (code !== 0)
        assert.is(
          c
            .err()
            .trim()
            .split('\n')
            .filter((l) => !l.startsWith('warning: ')).length,
          1,
          `${where}: one line: ${escapeTerminal(c.err())}`,
        );
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  assert.ok((outcomes.get(0) ?? 0) > 0 && (outcomes.get(0) ?? 0) < COUNT, `some plans and some refusals: ${JSON.stringify([...outcomes])}`);
  assert.ok(rssGrowthMiB(rss) < MEMORY_BOUND_MIB, `RSS grew ${rssGrowthMiB(rss).toFixed(0)} MiB`);
});

test(`${COUNT} hostile commits checked out as the branch a tick acts on: each link or odd type is one problem, nothing is read through it`, async () => {
  const repo = await openConfigRepo({ dir: checkout, env: { PATH: process.env.PATH, HOME: tmp.dir } });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  let invalid = 0;
  for (let i = 0; i < COUNT; i++) {
    const where = `git variant v${i} of seed ${SEED} (LLMGW_HOSTILE_SEED=${SEED} reproduces it)`;
    try {
      git('checkout', '--quiet', '--force', '--detach', `v${i}`);
    } catch {
      // What the last variant left (an emptied submodule directory) in the way of this one.
      git('clean', '-ffdxq');
      git('checkout', '--quiet', '--force', '--detach', `v${i}`);
    }
    const branch = await branchConfig(repo, [], { HOME: tmp.dir });
    const warnings: string[] = [];
    const { state } = await previousRun(checkout, (m) => warnings.push(m));
    const lines = [...(branch.loaded.ok ? [] : branch.loaded.errors), ...branch.loaded.warnings].map(formatProblem);
    if (!branch.loaded.ok) invalid++;
    for (const l of lines) assert.not.ok(l.includes('\n'), `${where}: one line: ${escapeTerminal(l)}`);
    // Warnings go to the log, which escapes each line; what must never be there is a file from outside.
    const leaks = leaksInAll({ problems: lines.join('\n'), warnings: warnings.map(escapeTerminal).join('\n'), state: JSON.stringify(state) });
    assert.equal(leaks, [], `${where}: ${leaks.join('; ')}`);
    assert.not.ok((branch.clusterText ?? '').includes(CANARY), `${where}: cluster.yaml was read through a link`);
    assert.is(readFileSync(SECRET_FILE, 'utf8'), `PRIVATE KEY ${CANARY}\n`);
  }
  assert.ok(invalid > COUNT / 4 && invalid < COUNT, `${invalid} of ${COUNT} invalid`);
});

test.run();
