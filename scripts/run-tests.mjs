#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) in its own process, two
// at a time, each under a timeout: uvu neither times out a test nor forces an
// exit, so one forgotten handle would otherwise hang the whole run. Adds up
// uvu's Total/Passed/Skipped lines and ends with `N passed, M failed`.
//
//   node scripts/run-tests.mjs [filter ...]   only files whose path contains a filter
//
// LLMGW_TEST_BAIL=1 starts no new file once one has failed (mutation testing,
// scripts/mutate.mjs: a mutant is killed by the first failure, the rest is waste).
//
// LLMGW_MUTATION_COVERAGE=1 (mutation testing, in Stryker's sandbox): the run
// without an active mutant (Stryker's dry run) records which mutants each test
// file reaches, in its own process and in every node process it starts, into
// .mutation-coverage.json; a run with an active mutant then runs only the files
// that reach it. A file that never reaches the mutated code cannot tell the
// mutant from the code, so skipping it changes no verdict, only the time.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { availableParallelism } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const testDir = join(root, 'dist', 'test');
// `test/plan/`, `dist/test/plan/` and `plan/` name the same files.
const filters = process.argv.slice(2).map((x) => x.replace(/^(\.\/)?(dist\/)?test\//, ''));
const timeoutMs = Number(process.env.LLMGW_TEST_TIMEOUT_MS ?? 180_000);
const jobs = Number(process.env.LLMGW_TEST_JOBS ?? Math.min(2, availableParallelism()));
const bail = process.env.LLMGW_TEST_BAIL === '1';

/** Files under `dir` whose names end in `suffix`, in path order. */
function walk(dir, suffix) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out;
}

// Filters match the path under dist/test, never the checkout's own path (a worktree named
// like a test folder would otherwise match every file).
const under = (f) => relative(testDir, f);
let files = walk(testDir, '.test.js').filter((f) => filters.length === 0 || filters.some((x) => under(f).includes(x)));
// Bailing, the files of the first filter run first: name the closest tests first.
if (bail) files = filters.flatMap((x, i) => files.filter((f) => under(f).includes(x) && filters.findIndex((y) => under(f).includes(y)) === i));
// Under Stryker, the test files closest to the source file that holds the active
// mutant go first: those named like it (src/config/duration.ts:
// test/config/duration*.test.ts), then those that import it, then those that
// import a module that imports it, and so on. The same files run, so the same
// mutants are killed; a killed one is found sooner.
const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
const coverage = process.env.LLMGW_MUTATION_COVERAGE === '1';
const coverageFile = join(root, '.mutation-coverage.json');
const coverageDir = join(root, '.mutation-coverage');
if (coverage && mutant) files = reaching(files, mutant);
if (bail && mutant) files = closestFirst(files, mutant);
if (coverage && !mutant) {
  rmSync(coverageDir, { recursive: true, force: true });
  mkdirSync(coverageDir, { recursive: true });
}

/** The files that reached mutant `id` in the recorded run; a file the record does not know is kept. */
function reaching(list, id) {
  if (!existsSync(coverageFile)) return list;
  const reached = JSON.parse(readFileSync(coverageFile, 'utf8'));
  return list.filter((f) => {
    const ids = reached[relative(testDir, f)];
    return ids === undefined || ids.includes(id);
  });
}

/** The relative imports of a compiled file, resolved to paths. */
function importsOf(file, text) {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.js)'/g)].map((m) => join(dirname(file), m[1]));
}

function closestFirst(list, id) {
  const needle = `stryMutAct_9fa48("${id}")`;
  const sources = new Map(walk(join(root, 'dist', 'src'), '.js').map((f) => [f, readFileSync(f, 'utf8')]));
  const mutated = [...sources].find(([, text]) => text.includes(needle))?.[0];
  if (mutated === undefined) return list;
  // Distance of every source module from the mutated one, through who imports whom.
  const importers = new Map();
  for (const [f, text] of sources) for (const dep of importsOf(f, text)) importers.set(dep, [...(importers.get(dep) ?? []), f]);
  const depth = new Map([[mutated, 0]]);
  for (const queue = [mutated]; queue.length > 0;) {
    const f = queue.shift();
    for (const user of importers.get(f) ?? []) if (!depth.has(user)) (depth.set(user, depth.get(f) + 1), queue.push(user));
  }
  const base = basename(mutated, '.js');
  const rank = (test) => {
    const t = basename(test, '.test.js');
    if (t === base || t.startsWith(`${base}-`)) return 0;
    const ds = importsOf(test, readFileSync(test, 'utf8'))
      .map((d) => depth.get(d))
      .filter((d) => d !== undefined);
    return ds.length > 0 ? 1 + Math.min(...ds) : Infinity;
  };
  const ranked = list.map((f, i) => ({ f, i, r: rank(f) }));
  return ranked.sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
}

// eslint-disable-next-line no-control-regex -- ESC is exactly what this strips (ANSI colours)
const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const record =
      coverage && !mutant
        ? {
            // NODE_OPTIONS, so that node processes the test starts record too.
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${join(root, 'scripts', 'mutation-coverage-hook.mjs')}`.trim(),
            LLMGW_COVERAGE_DIR: coverageDir,
            LLMGW_COVERAGE_TAG: relative(testDir, file),
          }
        : {};
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...record },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const text = strip(out);
      const num = (label) => {
        const m = text.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'));
        return m ? Number(m[1]) : null;
      };
      const total = num('Total');
      const passed = num('Passed');
      const skipped = num('Skipped') ?? 0;
      resolve({ file, code, timedOut, text, total, passed, skipped, ms: Date.now() - started });
    });
  });
}

let passed = 0,
  failed = 0,
  skipped = 0;
const queue = [...files];
const results = [];
async function worker() {
  for (let f = queue.shift(); f; f = queue.shift()) {
    const r = await runFile(f);
    results.push(r);
    const name = relative(testDir, r.file);
    let p = r.passed ?? 0;
    let fl = r.total !== null && r.passed !== null ? r.total - r.passed - r.skipped : 0;
    // A file that crashed, hung or exited non-zero without a failing count is one failure.
    if (r.timedOut || r.total === null || (r.code !== 0 && fl === 0)) fl += 1;
    passed += p;
    failed += fl;
    skipped += r.skipped;
    if (fl && bail) queue.length = 0;
    const why = r.timedOut ? ` (timed out after ${timeoutMs} ms)` : r.total === null ? ' (no uvu summary)' : '';
    process.stdout.write(`${fl ? 'FAIL' : 'ok  '} ${name}: ${p} passed, ${fl} failed${why} [${r.ms} ms]\n`);
    if (fl)
      process.stdout.write(
        r.text
          .split('\n')
          .map((l) => '    ' + l)
          .join('\n') + '\n',
      );
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
if (coverage && mutant && files.length === 0) process.stdout.write(`no test file reaches mutant ${mutant}\n`);
else if (files.length === 0) {
  process.stdout.write('no test files found\n');
  failed += 1;
}
if (coverage && !mutant && failed === 0) writeCoverage();

/** Merges what each test process recorded into one map: test file -> mutant ids it reached. */
function writeCoverage() {
  const reached = Object.fromEntries(files.map((f) => [relative(testDir, f), new Set()]));
  for (const name of readdirSync(coverageDir)) {
    const { tag, ids } = JSON.parse(readFileSync(join(coverageDir, name), 'utf8'));
    for (const id of ids) reached[tag]?.add(id);
  }
  const out = Object.fromEntries(Object.entries(reached).map(([t, ids]) => [t, [...ids].sort((a, b) => a - b)]));
  writeFileSync(coverageFile, JSON.stringify(out));
  rmSync(coverageDir, { recursive: true, force: true });
}
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = failed ? 1 : 0;
