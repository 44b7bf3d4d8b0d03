// What llmgw's own paths are on disk and in a commit, and how its generated
// files are read (docs/security.md): never through a link, never a FIFO or a
// directory, never more than a cap; each refusal a DataError naming the file.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { diskPathProblems, foundInTree, foundOnDisk, pathProblem, readGeneratedFile, readGeneratedOrNull, treePathProblems } from '../../src/store/paths.js';
import { DataError } from '../../src/errors.js';

let repo = '';
test.before.each(() => {
  repo = mkdtempSync(join(tmpdir(), 'llmgw-generated-reads-'));
});
test.after.each(() => rmSync(repo, { recursive: true, force: true }));

/** A name longer than any file system allows (ENAMETOOLONG): a path lstat fails on with neither ENOENT nor ENOTDIR. */
const TOO_LONG = 'x'.repeat(300);

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, DataError);
  return (err as Error).message;
}

test('on disk, a path is a file, a directory, a link or something else; absent (also below a file) is missing', async () => {
  writeFileSync(join(repo, 'f'), 'x');
  mkdirSync(join(repo, 'd'));
  symlinkSync('f', join(repo, 'l'));
  execFileSync('mkfifo', [join(repo, 'fifo')]);
  const found = await Promise.all(['f', 'd', 'l', 'fifo', 'none', 'f/below', TOO_LONG].map((p) => foundOnDisk(join(repo, p))));
  assert.equal(found, ['file', 'dir', 'symlink', 'other', 'missing', 'missing', 'other']);
});

test('in a commit, only the modes 100xxx (octal) are files: anything longer, shorter or prefixed is something else', () => {
  assert.equal(['100644', '100755', '040000', '120000', '160000'].map(foundInTree), ['file', 'file', 'dir', 'symlink', 'other']);
  assert.equal(['0100644', '1006440', '1006', '100', '100abc', '100899'].map(foundInTree), ['other', 'other', 'other', 'other', 'other', 'other']);
  assert.is(foundInTree(undefined), 'missing');
});

test('a .llmgw that is a submodule or a FIFO is "not a regular directory"', async () => {
  const line = '.llmgw is not a regular directory (a FIFO, socket, device or submodule): llmgw reads nothing there (a reconcile tick replaces it)';
  assert.is(pathProblem('.llmgw', 'dir', 'other'), line);
  assert.equal(
    await treePathProblems(
      new Map([
        ['.llmgw', '160000'],
        ['.llmgw/state.json', '120000'],
      ]),
    ),
    [{ file: '.llmgw', line: 1, col: 1, path: '', message: line }],
  );
  execFileSync('mkfifo', [join(repo, '.llmgw')]);
  assert.equal(
    (await diskPathProblems(repo, 'repo')).map((p) => `${p.file}: ${p.message}`),
    [`repo/.llmgw: ${line}`],
  );
});

test('nothing inside a linked .llmgw/ is judged, even what would be wrong there', async () => {
  const target = join(repo, 'elsewhere');
  mkdirSync(join(target, 'observed.json'), { recursive: true });
  symlinkSync('/etc/passwd', join(target, 'state.json'));
  symlinkSync(target, join(repo, '.llmgw'));
  assert.equal(
    (await diskPathProblems(repo)).map((p) => p.file),
    ['.llmgw'],
  );
  assert.equal(
    (
      await treePathProblems(
        new Map([
          ['.llmgw', '120000'],
          ['.llmgw/state.json', '120000'],
          ['.llmgw/observed.json', '040000'],
        ]),
      )
    ).map((p) => p.file),
    ['.llmgw'],
  );
});

test('STATUS.md is read whether or not .llmgw/ exists; a missing file is null', async () => {
  writeFileSync(join(repo, 'STATUS.md'), '# Fleet\n');
  assert.is(await readGeneratedFile(repo, 'STATUS.md'), '# Fleet\n');
  assert.is(await readGeneratedOrNull(repo, 'STATUS.md'), '# Fleet\n');
  assert.is(await readGeneratedFile(repo, '.llmgw/state.json'), null);
});

test('a generated file that is too large, unreadable, a link, a directory or a FIFO is refused with a DataError saying which', async () => {
  writeFileSync(join(repo, 'STATUS.md'), '');
  truncateSync(join(repo, 'STATUS.md'), 17 * 1024 * 1024);
  assert.is(await refusal(readGeneratedFile(repo, 'STATUS.md', 'repo/STATUS.md')), 'repo/STATUS.md: not read: it is 17 MiB, more than 16 MiB');
  assert.is(await refusal(readGeneratedFile(repo, TOO_LONG, 'repo/long')), 'repo/long: cannot read (ENAMETOOLONG)');
  mkdirSync(join(repo, '.llmgw'));
  symlinkSync('/etc/passwd', join(repo, '.llmgw', 'state.json'));
  mkdirSync(join(repo, '.llmgw', 'observed.json'));
  execFileSync('mkfifo', [join(repo, 'STATUS.md.fifo')]);
  assert.equal(
    [
      await refusal(readGeneratedFile(repo, '.llmgw/state.json', 'repo/.llmgw/state.json')),
      await refusal(readGeneratedFile(repo, '.llmgw/observed.json')),
      await refusal(readGeneratedFile(repo, 'STATUS.md.fifo')),
    ],
    [
      'repo/.llmgw/state.json: not read: .llmgw/state.json is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)',
      '.llmgw/observed.json: not read: .llmgw/observed.json is a directory, not a file: llmgw writes this file itself (a reconcile tick replaces it)',
      'STATUS.md.fifo: not read: STATUS.md.fifo is not a regular file (a FIFO, socket, device or submodule): llmgw reads nothing there (a reconcile tick replaces it)',
    ],
  );
});

test('readGeneratedOrNull reads a refused file as absent, but a bug (anything but a DataError) still throws', async () => {
  mkdirSync(join(repo, '.llmgw'));
  symlinkSync('/etc/passwd', join(repo, '.llmgw', 'state.json'));
  assert.is(await readGeneratedOrNull(repo, '.llmgw/state.json'), null);
  const bug = await readGeneratedOrNull(repo, undefined as unknown as string).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(bug, TypeError);
});

test.run();
