// dist/llmgw-node.mjs copied ALONE into an empty directory, and run from there
// with nothing but `node`: what a GPU node or a router host has (docs/operations.md).

import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle `npm run build` writes (this file is dist/test/helpers/node-bundle.js). */
export const BUNDLE = fileURLToPath(new URL('../../llmgw-node.mjs', import.meta.url));

export interface CopiedBundle {
  dir: string;
  /** The copy's path: the only file in `dir`. */
  file: string;
  remove(): void;
}

/** Whether any directory from `dir` up to / holds a node_modules. */
export function nodeModulesAbove(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) return join(d, 'node_modules');
    if (dirname(d) === d) return null;
  }
}

export function copyBundle(): CopiedBundle {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build (or npm run bundle) first`);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-node-bundle-'));
  const file = join(dir, 'llmgw-node.mjs');
  copyFileSync(BUNDLE, file);
  if (readdirSync(dir).length !== 1) throw new Error(`${dir} should hold the bundle alone`);
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node FILE args…` in the copy's directory, with only the env given (and PATH). */
export function runBundle(copy: CopiedBundle, args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [copy.file, ...args], {
      cwd: copy.dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // a subcommand that reads no input may exit first (EPIPE)
    child.stdin.end(opts.stdin ?? '');
  });
}
