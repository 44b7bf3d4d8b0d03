// Reading cluster.yaml and models.yaml from the repo on disk (docs/security.md):
// regular files only, never through a symbolic link, at most MAX_CONFIG_BYTES,
// each problem one line at `file:1:1`. A missing file whose name is close
// (cluster.yml, Cluster.yaml) is named in the message: an easy mistake to stare past.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigProblem } from '../types/config.js';
import { formatBytes, readRegularFile } from '../util/regular-file.js';
import { MAX_CONFIG_BYTES } from './limits.js';

export interface ConfigFileText {
  /** The file name as printed in problems, e.g. examples/demo/models.yaml. */
  name: string;
  text: string;
}

/** A file's text, or the one problem that kept it from being read. */
export type FileInput = ConfigFileText | ConfigProblem;

/** Names in `dir` that are `base` spelt otherwise: `.yml`, other case. */
async function lookalikes(dir: string, base: string): Promise<string[]> {
  const stem = base.replace(/\.yaml$/, '').toLowerCase();
  try {
    const names = await readdir(dir);
    return names.filter((n) => n !== base && (n.toLowerCase() === `${stem}.yaml` || n.toLowerCase() === `${stem}.yml`)).sort();
  } catch {
    return [];
  }
}

export async function readConfigFile(repoDir: string, shownDir: string, base: string): Promise<FileInput> {
  const name = join(shownDir, base);
  const at = (message: string): ConfigProblem => ({ file: name, line: 1, col: 1, path: '', message });
  const r = await readRegularFile(join(repoDir, base), MAX_CONFIG_BYTES);
  if (r.ok) return { name, text: r.text };
  switch (r.why) {
    case 'missing': {
      const found = await lookalikes(repoDir, base);
      return at(found.length > 0 ? `no such file; found ${found.join(', ')}: did you mean ${base}? (llmgw reads only that name)` : 'no such file');
    }
    case 'symlink':
      return at(`${base} is a symbolic link: llmgw reads only regular files from the config repo, and read nothing through it`);
    case 'directory':
      return at('is a directory, not a file');
    case 'not-regular':
      return at(`${base} is not a regular file (a FIFO, socket or device): not read`);
    case 'too-large':
      return at(`the file is ${formatBytes(r.size)}; a config file may be at most ${formatBytes(MAX_CONFIG_BYTES)}`);
    default:
      return at(`cannot read (${r.code})`);
  }
}
