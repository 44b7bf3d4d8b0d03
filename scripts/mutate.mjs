#!/usr/bin/env node
// `npm run mutate [-- folder ...] [-- --force]`: mutation testing of the folders of
// stryker.config.mjs, one Stryker run each (its own mutants, its own tests),
// then one line per folder: mutants, killed, timed out, survived, score, time.
// Reports: reports/mutation/<folder>.html (every survivor, in its source line).
//
//   node scripts/mutate.mjs                  every folder, in the config's order
//   node scripts/mutate.mjs fleet src/notify one or more folders (src/ and .ts optional)
//   node scripts/mutate.mjs --force          test every mutant again, reusing nothing
//
// Incremental: Stryker reuses the result of every mutant whose code did not
// change. It cannot see test changes (its command runner knows no tests), so
// this script does: when a folder's test files changed since its last run, the
// mutants that survived are tested again (the killed ones stay killed: added
// tests cannot revive them; after weakening a test, use --force).
//
// Equivalent mutants (reviewed: no test can tell them apart from the code) are
// listed with the reason in scripts/mutation-equivalents.json and counted apart.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { FOLDERS } from '../stryker.config.mjs';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, 'reports', 'mutation');
const args = process.argv.slice(2);
const force = args.includes('--force');
const wanted = args
  .filter((a) => !a.startsWith('--'))
  .map((a) =>
    a
      .replace(/^\.?\/?src\//, '')
      .replace(/\.ts$/, '')
      .replace(/\/+$/, ''),
  );
for (const w of wanted) {
  if (!(w in FOLDERS)) {
    process.stderr.write(`mutate: ${w} is not a folder of stryker.config.mjs (${Object.keys(FOLDERS).join(', ')})\n`);
    process.exit(1);
  }
}
const folders = wanted.length > 0 ? wanted : Object.keys(FOLDERS);

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** The folder's test files, the fixtures beside them, the fixture kit (test/fixtures), test/helpers, the runner and the folder's config entry. */
function testsHash(folder) {
  const { tests } = FOLDERS[folder];
  const all = walk(join(root, 'test')).map((f) => relative(root, f));
  const picked = all.filter((f) => f.endsWith('.test.ts') && tests.some((t) => f.includes(t)));
  const dirs = new Set([...picked.map((f) => dirname(f)), 'test/fixtures', 'test/helpers']);
  const fixtures = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && dirs.has(dirname(f)));
  const h = createHash('sha256');
  h.update(JSON.stringify(FOLDERS[folder]));
  for (const f of [...picked, ...fixtures, 'scripts/run-tests.mjs'].sort()) h.update(`${f}\0${readFileSync(join(root, f))}\0`);
  return h.digest('hex');
}

const name = (folder) => folder.replace(/\//g, '-');
const DETECTED = new Set(['Killed', 'Timeout']);

/** Tests changed: forget the results of mutants they did not kill, so those run again. */
function forgetSurvivors(folder) {
  const file = join(outDir, `${name(folder)}.incremental.json`);
  if (!existsSync(file)) return 0;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  let forgotten = 0;
  for (const f of Object.values(report.files ?? {})) {
    const before = f.mutants.length;
    f.mutants = f.mutants.filter((m) => DETECTED.has(m.status) || m.status === 'Ignored');
    forgotten += before - f.mutants.length;
  }
  writeFileSync(file, JSON.stringify(report));
  return forgotten;
}

/**
 * Survivors that are equivalent mutants (no test can tell them from the code),
 * each reviewed and explained in scripts/mutation-equivalents.json. Matched by
 * file, mutator, replacement, the text of the source line and the column in it,
 * so they follow the line when code above it moves; an edited line drops out of
 * the list and its survivors show again.
 */
const EQUIVALENTS = JSON.parse(readFileSync(join(root, 'scripts', 'mutation-equivalents.json'), 'utf8')).equivalents;
/** `column`: where the mutant starts in the line without its indentation (1-based), so re-indenting keeps the match. */
function isEquivalent(file, line, m) {
  const column = m.location.start.column - (line.length - line.trimStart().length);
  return EQUIVALENTS.some(
    (e) => file === e.file && e.mutator === m.mutatorName && e.replacement === m.replacement && e.line === line.trim() && e.column === column,
  );
}

function counts(folder) {
  const report = JSON.parse(readFileSync(join(outDir, `${name(folder)}.json`), 'utf8'));
  const c = { total: 0, killed: 0, timeout: 0, survived: 0, equivalent: 0, errors: 0, ignored: 0 };
  const survivors = [];
  for (const [file, f] of Object.entries(report.files)) {
    const lines = f.source.split('\n');
    const shown = file.startsWith('/') ? relative(root, file) : file;
    for (const m of f.mutants) {
      c.total += 1;
      if (m.status === 'Killed') c.killed += 1;
      else if (m.status === 'Timeout') c.timeout += 1;
      else if (m.status === 'Ignored') c.ignored += 1;
      else if (m.status === 'Survived' || m.status === 'NoCoverage') {
        if (isEquivalent(shown, lines[m.location.start.line - 1] ?? '', m)) c.equivalent += 1;
        else {
          c.survived += 1;
          survivors.push(`${shown}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}: ${m.replacement ?? ''}`.replace(/\s+/g, ' '));
        }
      } else c.errors += 1;
    }
  }
  const detected = c.killed + c.timeout;
  const valid = detected + c.survived + c.equivalent;
  // Stryker's score counts an equivalent mutant as a survivor; the second one leaves them out.
  c.score = valid === 0 ? 100 : (100 * detected) / valid;
  c.scoreNet = valid - c.equivalent === 0 ? 100 : (100 * detected) / (valid - c.equivalent);
  return { c, survivors };
}

mkdirSync(outDir, { recursive: true });
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const rows = [];
let failed = false;
for (const folder of folders) {
  const stateFile = join(outDir, `${name(folder)}.tests.sha256`);
  const hash = testsHash(folder);
  const previous = existsSync(stateFile) ? readFileSync(stateFile, 'utf8').trim() : null;
  if (!force && previous !== null && previous !== hash) {
    const n = forgetSurvivors(folder);
    process.stdout.write(`mutate ${folder}: its tests changed, ${n} surviving mutant(s) will be tested again\n`);
  }
  process.stdout.write(`\n=== mutate ${folder} ===\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', ...(force ? ['--force'] : [])], {
    cwd: root,
    env: { ...process.env, LLMGW_MUTATE_FOLDER: folder },
    stdio: 'inherit',
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (run.status !== 0) {
    failed = true;
    rows.push({ folder, seconds, error: `stryker exited with ${run.status ?? run.signal}` });
    continue;
  }
  writeFileSync(stateFile, hash + '\n');
  rows.push({ folder, seconds, ...counts(folder) });
}

const pad = (s, n) => String(s).padStart(n);
process.stdout.write('\nfolder                 mutants  killed  timeout  survived  equivalent  ignored  errors   score  w/o equiv.   time\n');
for (const r of rows) {
  if (r.error) {
    process.stdout.write(`${r.folder.padEnd(22)} ${r.error}\n`);
    continue;
  }
  const { c } = r;
  process.stdout.write(
    `${r.folder.padEnd(22)} ${pad(c.total, 7)} ${pad(c.killed, 7)} ${pad(c.timeout, 8)} ${pad(c.survived, 9)} ${pad(c.equivalent, 11)} ${pad(c.ignored, 8)} ${pad(c.errors, 7)} ${pad(c.score.toFixed(1) + '%', 7)} ${pad(c.scoreNet.toFixed(1) + '%', 11)} ${pad(r.seconds + 's', 6)}\n`,
  );
}
// Every folder's latest result, this run's replacing earlier ones.
const summaryFile = join(outDir, 'summary.json');
const summary = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : {};
for (const { survivors, ...r } of rows) if (!r.error) summary[r.folder] = { ...r, survivors };
writeFileSync(summaryFile, JSON.stringify(summary, null, 2) + '\n');
for (const r of rows) {
  if (r.survivors?.length)
    process.stdout.write(`\nsurvivors in ${r.folder} (reports/mutation/${name(r.folder)}.html):\n${r.survivors.map((s) => '  ' + s).join('\n')}\n`);
}
process.exitCode = failed ? 1 : 0;
