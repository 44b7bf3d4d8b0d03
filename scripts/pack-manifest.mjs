#!/usr/bin/env node
// `npm pack`'s prepack/postpack: the tarball's package.json without the
// `prepare` script. The tarball is already built (dist/ is in it), so prepare
// would never run when it is installed, but npm 11 lists it among the install
// scripts "not covered by allowScripts" on every install. prepack writes the
// manifest without it (keeping the original beside it), postpack puts the
// original back.
//
//   node scripts/pack-manifest.mjs strip|restore [DIR]   DIR: the package (default this repo)

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.argv[3] ?? fileURLToPath(new URL('..', import.meta.url));
const manifest = join(dir, 'package.json');
const kept = join(dir, 'package.json.orig');
const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(kept)) throw new Error('package.json.orig exists: a pack was interrupted; restore it first (node scripts/pack-manifest.mjs restore)');
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeFileSync(kept, text);
  writeFileSync(manifest, JSON.stringify(pkg, null, 2) + '\n');
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  throw new Error('usage: pack-manifest.mjs strip|restore');
}
