// A tick's config read never follows a symlink (docs/security.md): a PR that
// makes cluster.yaml a link to a file outside the repo gets the loader's one
// line, and the text the invalid tick uses for its webhooks is not read either.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { branchConfig } from '../../src/tick/branch-config.js';
import { formatProblem } from '../../src/errors.js';
import type { ConfigRepo } from '../../src/git/config-repo.js';

const demo = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));

test('a symlinked cluster.yaml: the committed config is invalid, and nothing is read through the link', async () => {
  const work = mkdtempSync(join(tmpdir(), 'llmgw-branch-links-'));
  try {
    const dir = join(work, 'repo');
    cpSync(demo, dir, { recursive: true });
    const outside = join(work, 'secret.yaml');
    writeFileSync(outside, 'apiVersion: llmgw/v1\nkind: Cluster\nname: leaked\nnotify: { webhooks: [{ url: "https://attacker.example/x" }] }\n');
    rmSync(join(dir, 'cluster.yaml'));
    symlinkSync(outside, join(dir, 'cluster.yaml'));
    const repo = { dir, committedFile: async () => null, modesAt: async () => new Map() } as unknown as ConfigRepo;
    const b = await branchConfig(repo, [], { HOME: work });
    assert.equal(b.loaded.ok ? [] : b.loaded.errors.map(formatProblem), [
      'cluster.yaml:1:1: cluster.yaml is a symbolic link: llmgw reads only regular files from the config repo, and read nothing through it',
    ]);
    assert.is(b.clusterText, null);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
