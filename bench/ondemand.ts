// npm run bench:ondemand — how fast a model at 0 wakes, and whether it flaps
// (docs/operations.md#which-trigger-sees-what). Not a test: it prints figures.
//
// The world is src/demo/sim-world.ts (real SSH servers, the real agent, the
// stub engine, the real router, a bare git remote) and the real `llmgw run`
// as a child process with its default --poll and --demand-poll, its schedule a
// year away, so only reacting at once can wake anything.
//
//   1. Cold start, for the stub engine's --ready-after of 5 s and of 30 s: a
//      model `od` with `replicas: {min: 0, max: 2}` and no replica; 20 streamed
//      requests arrive at once. Measured: the time from the first request to its
//      first token (target: ready time + ≤ 5 s), and requests lost (any answer
//      but 200 with a whole stream; target 0).
//   2. Flapping: demand that alternates every 30 s (on: two clients sending
//      back to back; off: silence) for 10 minutes, `scaleDownAfter: 60s`.
//      Measured: scale-downs of `od` as the commits name them (target ≤ 2), and
//      requests lost.
//
// node dist/bench/ondemand.js [--ready 5,30] [--flap-minutes 10] [--no-flap]

import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import { git } from '../src/demo/git-remote.js';
import { DEMO_EXAMPLE_DIR, startSimWorld, type SimWorld } from '../src/demo/sim-world.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', 'src', 'cli', 'main.js');
const NEVER = '0 0 1 1 *';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function modelsYaml(readyAfter: number): string {
  return [
    'apiVersion: llmgw/v1',
    'kind: Models',
    'models:',
    `  - name: od`,
    `    weights: org/od`,
    `    engine: vllm`,
    `    gpus: 1`,
    `    replicas: { min: 0, max: 2 }`,
    `    scaleDownAfter: 60s`,
    `    args: [--ready-after, "${readyAfter}"]`,
    '',
  ].join('\n');
}

/** examples/demo with the stub engine's --ready-after allowed as a models.yaml arg. */
async function exampleWithReadyAfter(dir: string): Promise<string> {
  const out = join(dir, 'example');
  await cp(DEMO_EXAMPLE_DIR, out, { recursive: true });
  const file = join(out, 'cluster.yaml');
  const doc = parse(await readFile(file, 'utf8')) as { engines: Record<string, { allowArgs?: string[] }> };
  for (const e of Object.values(doc.engines)) e.allowArgs = [...(e.allowArgs ?? []), '--ready-after', '[0-9]*'];
  await writeFile(file, stringify(doc));
  return out;
}

interface Run {
  child: ChildProcess;
  lines: string[];
  times: number[];
  stop(): Promise<void>;
}

function startRun(world: SimWorld, dir: string): Run {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0' };
  const child = spawn(process.execPath, [CLI, 'run', '--schedule', NEVER, '--remote', world.remote, '--workdir', join(dir, 'wd')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  /** When each line was logged (ms since the epoch), by the child's own timestamp. */
  const times: number[] = [];
  let rest = '';
  const take = (chunk: Buffer) => {
    rest += String(chunk);
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const l of parts) {
      times.push(Date.parse(l.split(' ', 1)[0] ?? '') || Date.now());
      lines.push(l.replace(/^\S+ /, ''));
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return {
    child,
    lines,
    times,
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

async function until(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Answer {
  ok: boolean;
  status: number;
  /** ms from sending to the first token; null when none came. */
  firstTokenMs: number | null;
  error?: string;
}

/** One streamed chat completion through the router: ok when 200 and the stream ends with [DONE]. */
function chat(port: number, model: string): Promise<Answer> {
  const sent = Date.now();
  const body = JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'wake up' }], max_tokens: 8 });
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let first: number | null = null;
      let text = '';
      res.on('data', (c: Buffer) => {
        text += String(c);
        if (first === null && /"content"/.test(text)) first = Date.now() - sent;
      });
      res.on('end', () => resolve({ ok: res.statusCode === 200 && text.includes('[DONE]'), status: res.statusCode ?? 0, firstTokenMs: first }));
      res.on('error', (err) => resolve({ ok: false, status: res.statusCode ?? 0, firstTokenMs: first, error: err.message }));
    });
    req.setTimeout(10 * 60_000);
    req.on('error', (err) => resolve({ ok: false, status: 0, firstTokenMs: null, error: err.message }));
    req.end(body);
  });
}

/** The scale decisions of `od` the remote's commits name, oldest first: `[from, to]`. */
async function scales(world: SimWorld): Promise<[number, number][]> {
  const log = await git(world.remote, ['log', '--reverse', '--format=%B', 'main']);
  return [...log.matchAll(/scale od (\d+)→(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

async function withWorld<T>(readyAfter: number, body: (world: SimWorld, run: Run) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-bench-ondemand-'));
  const exampleDir = await exampleWithReadyAfter(dir);
  const world = await startSimWorld({ dir, exampleDir, modelsYaml: modelsYaml(readyAfter) });
  const run = startRun(world, dir);
  try {
    await until('the start tick', () => run.lines.some((l) => l.startsWith('tick (start)')), 120_000);
    const start = run.lines.find((l) => l.startsWith('tick (start)')) ?? '';
    if (/invalid/i.test(start)) {
      throw new Error(`models.yaml with a replicas range is not valid on this build (is the scaling decision merged?): ${run.lines.join(' | ')}`);
    }
    return await body(world, run);
  } finally {
    await run.stop();
    await world.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function coldStart(readyAfter: number): Promise<void> {
  await withWorld(readyAfter, async (world, run) => {
    const t0 = Date.now();
    const from = run.lines.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(world.routerPort, 'od')));
    const first = answers[0]!;
    const lost = answers.filter((a) => !a.ok);
    const ttft = first.firstTokenMs === null ? 'none' : `${(first.firstTokenMs / 1000).toFixed(1)} s`;
    const over = first.firstTokenMs === null ? '' : ` (ready time + ${(first.firstTokenMs / 1000 - readyAfter).toFixed(1)} s; target ≤ 5 s)`;
    console.log(`cold start, --ready-after ${readyAfter}s: first token after ${ttft}${over}; lost ${lost.length} of ${answers.length} (target 0)`);
    for (const a of lost.slice(0, 3)) console.log(`  lost: status ${a.status}${a.error ? ` ${a.error}` : ''}`);
    // What llmgw run did meanwhile, each line at its time since the first request.
    for (let i = from; i < run.lines.length; i++) {
      const l = run.lines[i]!;
      if (/^(demand:|tick \(|poll:)/.test(l)) console.log(`  +${((run.times[i]! - t0) / 1000).toFixed(1)} s  ${l}`);
    }
    console.log(`  scale decisions: ${(await scales(world)).map(([a, b]) => `${a}→${b}`).join(', ') || 'none'}`);
  });
}

async function flapping(minutes: number): Promise<void> {
  await withWorld(5, async (world) => {
    const end = Date.now() + minutes * 60_000;
    let sent = 0;
    const lost: Answer[] = [];
    while (Date.now() < end) {
      const phaseEnd = Math.min(end, Date.now() + 30_000);
      // On: two clients back to back.
      await Promise.all(
        [0, 1].map(async () => {
          while (Date.now() < phaseEnd) {
            const a = await chat(world.routerPort, 'od');
            sent += 1;
            if (!a.ok) lost.push(a);
          }
        }),
      );
      if (Date.now() >= end) break;
      await sleep(Math.max(0, Math.min(end, Date.now() + 30_000) - Date.now()));
    }
    const s = await scales(world);
    const downs = s.filter(([a, b]) => b < a).length;
    console.log(
      `flapping, ${minutes} min alternating every 30 s, scaleDownAfter 60s: ${downs} scale-downs of od (target ≤ 2); ${s.length} decisions (${s.map(([a, b]) => `${a}→${b}`).join(', ') || 'none'}); lost ${lost.length} of ${sent} (target 0)`,
    );
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { ready: { type: 'string', default: '5,30' }, 'flap-minutes': { type: 'string', default: '10' }, 'no-flap': { type: 'boolean', default: false } },
  });
  for (const r of values.ready.split(',').map(Number)) await coldStart(r);
  if (!values['no-flap']) await flapping(Number(values['flap-minutes']));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
