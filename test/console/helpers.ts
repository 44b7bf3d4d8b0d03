// A console on a directory for a test: started on a free loopback port,
// asked over real HTTP, closed after.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConsole, type ConsoleServer } from '../../src/console/server.js';
import { ROOT } from '../helpers/golden.js';

export interface Got {
  status: number;
  headers: Headers;
  text: string;
}

export async function get(base: string, path: string, init: RequestInit = {}): Promise<Got> {
  const res = await fetch(base + path, { redirect: 'manual', ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export async function withConsole<T>(dir: string, fn: (url: string) => Promise<T>, opts: { refreshMs?: number } = {}): Promise<T> {
  const server: ConsoleServer = await startConsole({ dir, displayDir: dir, listen: { host: '127.0.0.1', port: 0 }, refreshMs: opts.refreshMs });
  try {
    return await fn(server.url);
  } finally {
    await server.close();
  }
}

/** A copy of an example (config, STATUS.md, .llmgw/) in a temp dir, outside any git checkout. */
export function copyExample(example: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `llmgw-console-${example}-`));
  cpSync(join(ROOT, 'examples', example), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export { ROOT };
