// readConfigFile on a missing or unreadable file: each is one line at
// file:1:1, and every name that is the file spelt otherwise (.yml, other
// case) is named, in a stable order.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readConfigFile } from '../../src/config/config-files.js';

let repo = '';
test.before.each(() => {
  repo = mkdtempSync(join(tmpdir(), 'llmgw-config-files-'));
});
test.after.each(() => rmSync(repo, { recursive: true, force: true }));

const at = (file: string, message: string) => ({ file, line: 1, col: 1, path: '', message });

test('every lookalike of a missing file is named, in name order, and nothing else', async () => {
  for (const name of ['cluster.yml', 'Cluster.yaml', 'CLUSTER.YML', 'cluster.yaml.bak', 'clusters.yaml']) writeFileSync(join(repo, name), '');
  assert.equal(
    await readConfigFile(repo, 'repo', 'cluster.yaml'),
    at('repo/cluster.yaml', 'no such file; found CLUSTER.YML, Cluster.yaml, cluster.yml: did you mean cluster.yaml? (llmgw reads only that name)'),
  );
  assert.equal(await readConfigFile(repo, 'repo', 'models.yaml'), at('repo/models.yaml', 'no such file'));
});

test('the name compared is the file name without its last .yaml only', async () => {
  writeFileSync(join(repo, 'x.yaml.d.yml'), '');
  writeFileSync(join(repo, 'x.d.yaml.yml'), '');
  assert.equal(
    await readConfigFile(repo, '.', 'x.yaml.d.yaml'),
    at('x.yaml.d.yaml', 'no such file; found x.yaml.d.yml: did you mean x.yaml.d.yaml? (llmgw reads only that name)'),
  );
});

test('a file that cannot be read for another reason says so with the system error code', async () => {
  const long = 'c'.repeat(300);
  assert.equal(await readConfigFile(repo, 'repo', long), at(`repo/${long}`, 'cannot read (ENAMETOOLONG)'));
});

test.run();
