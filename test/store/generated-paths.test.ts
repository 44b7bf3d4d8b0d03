// STATUS.md and .llmgw/ must be regular files and a real directory, on disk
// and in the commit (docs/security.md): anything else is one line naming the
// path, the config is invalid for every command, and nothing is read through it.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as validate } from '../../src/cli/commands/validate.js';
import { diskPathProblems, readGeneratedFile, treePathProblems } from '../../src/store/paths.js';
import { loadConfig } from '../../src/config/load-config.js';
import { readState } from '../../src/store/read.js';
import { DataError, formatProblem } from '../../src/errors.js';
import { captureIo } from '../helpers/io.js';

const demo = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));
let work = '';
let repo = '';
let outside = '';

test.before.each(() => {
  work = mkdtempSync(join(tmpdir(), 'llmgw-generated-paths-'));
  repo = join(work, 'repo');
  mkdirSync(repo);
  for (const f of ['cluster.yaml', 'models.yaml']) cpSync(join(demo, f), join(repo, f));
  outside = join(work, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'id_ed25519'), 'PRIVATE KEY MATERIAL');
});
test.after.each(() => rmSync(work, { recursive: true, force: true }));

const lines = async () => (await diskPathProblems(repo)).map(formatProblem);

test('regular files and a real .llmgw/ directory (or none at all) are no problem', async () => {
  assert.equal(await lines(), []);
  mkdirSync(join(repo, '.llmgw'));
  writeFileSync(join(repo, '.llmgw', 'state.json'), '{"version":1}\n');
  writeFileSync(join(repo, 'STATUS.md'), '# Fleet\n');
  assert.equal(await lines(), []);
});

test('a STATUS.md that is a symbolic link is one line at STATUS.md:1:1', async () => {
  symlinkSync(join(outside, 'id_ed25519'), join(repo, 'STATUS.md'));
  assert.equal(await lines(), [
    'STATUS.md:1:1: STATUS.md is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)',
  ]);
});

test('a linked .llmgw/ is one line for the directory; the files inside are not looked at through it', async () => {
  writeFileSync(join(outside, 'state.json'), '{}');
  symlinkSync(outside, join(repo, '.llmgw'));
  assert.equal(await lines(), [
    '.llmgw:1:1: .llmgw is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)',
  ]);
});

test('a directory where a file belongs, a file where .llmgw/ belongs, a FIFO and a linked state.json are each named', async () => {
  mkdirSync(join(repo, 'STATUS.md'));
  writeFileSync(join(repo, '.llmgw'), 'not a directory');
  assert.equal(await lines(), [
    'STATUS.md:1:1: STATUS.md is a directory, not a file: llmgw writes this file itself (a reconcile tick replaces it)',
    '.llmgw:1:1: .llmgw is a file, not a directory: llmgw keeps its state there (a reconcile tick replaces it)',
  ]);
  rmSync(join(repo, '.llmgw'));
  mkdirSync(join(repo, '.llmgw'));
  execFileSync('mkfifo', [join(repo, '.llmgw', 'observed.json')]);
  symlinkSync(join(outside, 'id_ed25519'), join(repo, '.llmgw', 'state.json'));
  assert.equal((await lines()).slice(1), [
    '.llmgw/observed.json:1:1: .llmgw/observed.json is not a regular file (a FIFO, socket, device or submodule): llmgw reads nothing there (a reconcile tick replaces it)',
    '.llmgw/state.json:1:1: .llmgw/state.json is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)',
  ]);
});

test('modes of a commit are judged alike: 120000 is a link, 160000 a submodule, and a missing path is fine', async () => {
  const problems = await treePathProblems(
    new Map([
      ['STATUS.md', '120000'],
      ['.llmgw', '040000'],
      ['.llmgw/state.json', '160000'],
    ]),
  );
  assert.equal(
    problems.map((p) => p.file + ' ' + p.message.split(':')[0]!),
    ['STATUS.md STATUS.md is a symbolic link', '.llmgw/state.json .llmgw/state.json is not a regular file (a FIFO, socket, device or submodule)'],
  );
  assert.equal(await treePathProblems(new Map([['.llmgw', '040000']])), []);
});

test('loadConfig (every command) and validate refuse the branch: exit 1 and the line, with the YAML otherwise valid', async () => {
  symlinkSync(join(outside, 'id_ed25519'), join(repo, 'STATUS.md'));
  const loaded = await loadConfig(repo, { env: { HOME: work }, displayDir: 'repo' });
  assert.is(loaded.ok, false);
  assert.equal(loaded.ok ? [] : loaded.errors.map(formatProblem), [
    'repo/STATUS.md:1:1: STATUS.md is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)',
  ]);
  const c = captureIo({ cwd: work, env: { HOME: work } });
  assert.is(await validate(['--repo', 'repo'], c.io), 1);
  assert.match(c.err(), /^repo\/STATUS\.md:1:1: STATUS\.md is a symbolic link/m);
  assert.not.match(c.out() + c.err(), /PRIVATE/);
});

test('reading state.json through a linked .llmgw/ or from a FIFO is a DataError, never the target, never a hang', async () => {
  writeFileSync(join(outside, 'state.json'), '{"version":1,"note":"PRIVATE"}');
  symlinkSync(outside, join(repo, '.llmgw'));
  const err = await readState(repo).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, DataError);
  assert.match((err as Error).message, /state\.json: not read: \.llmgw is a symbolic link/);
  rmSync(join(repo, '.llmgw'));
  mkdirSync(join(repo, '.llmgw'));
  execFileSync('mkfifo', [join(repo, '.llmgw', 'state.json')]);
  const fifo = await readGeneratedFile(repo, '.llmgw/state.json').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(fifo, DataError);
  assert.is(await readGeneratedFile(repo, '.llmgw/observed.json'), null, 'a missing file is null');
});

test.run();
