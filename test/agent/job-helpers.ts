// Shared by the `agent job` tests: a fake engine (one small Node script) that
// writes down its argv and environment, then does what FAKE_ENGINE_MODE says:
//   exit-N      exit with code N at once
//   term-file   on SIGTERM write `term` and exit 0
//   term-default no handler: SIGTERM kills it
// and a start request that runs it.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StartRequest } from '../../src/types/snapshot.js';
import { pollUntil } from '../helpers/poll.js';

const SCRIPT = `
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const out = process.env.FAKE_ENGINE_OUT;
const mode = process.env.FAKE_ENGINE_MODE || 'term-file';
if (mode.startsWith('exit-')) process.exit(Number(mode.slice(5)));
if (mode === 'term-file') process.on('SIGTERM', () => { writeFileSync(join(out, 'term'), 'term'); process.exit(0); });
setInterval(() => undefined, 1000);
writeFileSync(join(out, 'seen.json'), JSON.stringify({ argv: process.argv.slice(2), cuda: process.env.CUDA_VISIBLE_DEVICES, replica: process.env.LLMGW_REPLICA_ID }));
`;

/** Writes the fake engine into dir; returns its path. */
export function writeFakeEngine(dir: string): string {
  const path = join(dir, 'fake-engine.cjs');
  writeFileSync(path, SCRIPT);
  return path;
}

export function fakeStart(engine: string, out: string, mode: string, args: string[] = []): StartRequest {
  return {
    replica: 'm-job-0',
    model: 'm',
    spec: 's1',
    weights: 'm',
    weightsPath: join(out, 'no-weights-here'),
    gpus: [0, 1],
    port: 18999,
    endpoint: 'http://127.0.0.1:18999',
    rank: 0,
    peers: ['n1'],
    command: [process.execPath, engine, ...args],
    env: { CUDA_VISIBLE_DEVICES: '0,1', FAKE_ENGINE_OUT: out, FAKE_ENGINE_MODE: mode },
    health: '/health',
    startTimeoutSeconds: 60,
  };
}

export interface Seen {
  argv: string[];
  cuda?: string;
  replica?: string;
}

export function seenBy(out: string): Seen | undefined {
  const p = join(out, 'seen.json');
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as Seen) : undefined;
}

/** Polls until check gives a value; fails naming what after a generous timeout. */
export function until<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  return pollUntil(what, check, timeoutMs, 50);
}
