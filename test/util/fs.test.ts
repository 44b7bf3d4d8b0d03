import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDeadTemps, writeFileAtomic } from '../../src/util/fs.js';
import { fill, mountTmpfs } from '../helpers/tmpfs.js';
import { errnoCode } from '../../src/util/errno.js';

test('a write on a full disk fails with ENOSPC and leaves no temporary file behind (a real tmpfs when this runs as root)', async () => {
  const fs = await mountTmpfs(64);
  const dir = fs?.dir ?? (await mkdtemp(join(tmpdir(), 'llmgw-fs-')));
  try {
    await writeFile(join(dir, 'STATUS.md'), 'old\n');
    let code: string | undefined;
    if (fs) {
      await fill(dir);
      code = await writeFileAtomic(join(dir, 'STATUS.md'), 'x'.repeat(200_000)).then(
        () => 'none',
        (e: unknown) => errnoCode(e),
      );
      assert.is(code, 'ENOSPC');
    } else {
      // Not root: the rename fails instead (the target is a directory), after a write that took.
      await mkdir(join(dir, 'sub', 'STATUS.md'), { recursive: true });
      await writeFile(join(dir, 'sub', 'STATUS.md', 'keep'), '');
      code = await writeFileAtomic(join(dir, 'sub', 'STATUS.md'), 'new\n').then(
        () => 'none',
        (e: unknown) => errnoCode(e),
      );
      assert.ok(code !== 'none');
    }
    assert.equal(
      (await readdir(dir)).filter((n) => n.endsWith('.tmp')),
      [],
    );
    assert.is(await readFile(join(dir, 'STATUS.md'), 'utf8'), 'old\n');
  } finally {
    if (fs) await fs.unmount();
    else await rm(dir, { recursive: true, force: true });
  }
});

test('temporary files of a writer that was killed are removed; a live writer’s are left alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-fs-'));
  try {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await writeFile(join(dir, `state.json.${dead}.1700000000000.tmp`), '{');
    await writeFile(join(dir, `state.json.${process.pid}.1700000000001.tmp`), '{');
    await writeFile(join(dir, `other.json.${dead}.1700000000000.tmp`), '{');
    assert.equal(await removeDeadTemps(join(dir, 'state.json')), [`state.json.${dead}.1700000000000.tmp`]);
    assert.equal((await readdir(dir)).sort(), [`other.json.${dead}.1700000000000.tmp`, `state.json.${process.pid}.1700000000001.tmp`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
