// The lifecycle end-to-end tests' world (docs/safety.md): the simulated
// fleet of src/demo/sim-world.ts — real SSH servers, the real agent, stub
// engines, the real router, a real git remote — with a clock the test moves
// by hand between ticks, and what those tests do to it: stream through the
// router, read the router's usage, turn a stub engine's knobs.

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse, stringify } from 'yaml';
import { runAgent } from '../../src/agent/main.js';
import { runRouterClient } from '../../src/router/client.js';
import type { TickResult } from '../../src/tick/run.js';
import type { AgentReport, ReplicaReport, RouterUsage } from '../../src/types/snapshot.js';
import type { State } from '../../src/types/state.js';
import type { SimWorldOptions } from '../../src/demo/sim-world.js';
import { startE2E, type E2E } from './fleet-world.js';

export interface LifecycleWorld {
  e: E2E;
  /** The test's clock, ms. */
  t: number;
  /** One reconcile tick at the test's clock, after moving it on by `stepMs`. */
  tick(stepMs?: number): Promise<TickResult>;
  /** Every replica the agents report (rank 0 of each), with its node. */
  replicas(): Promise<(ReplicaReport & { node: string })[]>;
  usage(): Promise<RouterUsage>;
  /** Change a running stub engine's knobs (PUT /stub/config). */
  stub(endpoint: string, knobs: Record<string, unknown>): Promise<void>;
  state(): Promise<State>;
  /** Push new models.yaml (and cluster.yaml) as a merged PR. */
  config(files: { models?: string; cluster?: (doc: ClusterDoc) => void }): Promise<void>;
  /** Webhook events received, when started with `hook: true`. */
  events: { event: string; subject: string; details: Record<string, unknown> }[];
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cluster.yaml as parsed; a test edits the keys it names and the config load checks the result
type ClusterDoc = Record<string, any>;

/** Today 01:00 UTC: the clock moves by seconds, never across midnight. */
const DAY_START = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 1);

export async function startLifecycleWorld(
  modelsYaml: string,
  opts: { hook?: boolean; cluster?: (doc: ClusterDoc) => void; wrapHandler?: SimWorldOptions['wrapHandler'] } = {},
): Promise<LifecycleWorld> {
  const events: LifecycleWorld['events'] = [];
  let hook: Server | null = null;
  let hookUrl: string | null = null;
  if (opts.hook) {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        events.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  }
  const e = await startE2E({
    modelsYaml,
    ...(hookUrl ? { webhooks: [{ url: hookUrl }] } : {}),
    ...(opts.wrapHandler ? { wrapHandler: opts.wrapHandler } : {}),
  });
  const socket = join(e.world.dir, 'router.sock');
  const w: LifecycleWorld = {
    e,
    t: DAY_START,
    events,
    async tick(stepMs = 5_000) {
      w.t += stepMs;
      const at = new Date(w.t);
      return e.tick({ now: () => at });
    },
    async replicas() {
      const all = await Promise.all(
        e.world.nodeNames.map(async (node) => {
          const out = await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), e.world.agentEnv(node));
          return (JSON.parse(out.stdout) as AgentReport).replicas.filter((r) => (r.rank ?? 0) === 0).map((r) => ({ ...r, node }));
        }),
      );
      return all.flat().sort((a, b) => (a.id < b.id ? -1 : 1));
    },
    async usage() {
      const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: socket });
      if (out.code !== 0) throw new Error(out.stderr);
      return JSON.parse(out.stdout) as RouterUsage;
    },
    async stub(endpoint, knobs) {
      const res = await fetch(`${endpoint}/stub/config`, { method: 'PUT', body: JSON.stringify(knobs) });
      if (res.status !== 200) throw new Error(`stub config ${endpoint}: HTTP ${res.status}`);
    },
    async state() {
      return JSON.parse(await readFile(join(e.workdir, '.llmgw/state.json'), 'utf8')) as State;
    },
    async config(files) {
      const out: Record<string, string> = {};
      if (files.models) out['models.yaml'] = files.models;
      if (files.cluster) {
        const doc = parse(await readFile(join(e.people, 'cluster.yaml'), 'utf8')) as ClusterDoc;
        files.cluster(doc);
        out['cluster.yaml'] = stringify(doc, { lineWidth: 0 });
      }
      await e.push(out, 'a pull request');
    },
    async close() {
      await e.close();
      if (hook) await new Promise<void>((r) => hook.close(() => r()));
    },
  };
  if (opts.cluster) await w.config({ cluster: opts.cluster });
  return w;
}

/** Poll `check` (which observes the fleet, never a clock) until it holds; the bound only stops a broken test. */
export async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, boundMs = 60_000): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await sleep(150);
  }
}

export interface StreamResult {
  status: number;
  /** The content of every chunk, concatenated. */
  text: string;
  chunks: number;
  done: boolean;
  replica: string | null;
}

/** One streaming chat completion through the router, read to its end. */
export async function stream(routerPort: number, model: string, prompt: string): Promise<StreamResult> {
  const res = await fetch(`http://127.0.0.1:${routerPort}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: prompt }] }),
  });
  const body = await res.text().catch(() => '');
  let text = '';
  let chunks = 0;
  let done = false;
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6);
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[] };
    text += chunk.choices[0]?.delta?.content ?? '';
    chunks++;
  }
  return { status: res.status, text, chunks, done, replica: null };
}

/** A plain (non-streamed) completion through the router: its status. */
export async function ask(routerPort: number, model: string, prompt: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${routerPort}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Ticks until one plans nothing and no replica is starting or draining. Between
 * ticks it waits on what it can observe: the agents reporting the new replicas
 * running, the router reporting nothing in flight for those draining.
 */
export async function settle(w: LifecycleWorld, maxTicks = 20): Promise<TickResult> {
  for (let i = 0; i < maxTicks; i++) {
    const r = await w.tick();
    const moving = r.report?.replicas.filter((x) => x.state === 'starting' || x.state === 'draining') ?? [];
    if (r.plan && r.plan.actions.length === 0 && moving.length === 0 && !r.plan.rollouts?.some((x) => x.stage !== 'failed')) return r;
    const starting = new Set(moving.filter((x) => x.state === 'starting').map((x) => x.id));
    const draining = new Set(moving.filter((x) => x.state === 'draining').map((x) => x.id));
    await until('the fleet to move on', async () => {
      const reps = await w.replicas();
      const up = reps.every((x) => !starting.has(x.id) || x.state !== 'starting');
      const inflight = (await w.usage()).inflight ?? {};
      const drained = [...draining].every((id) => (inflight[id] ?? 0) === 0);
      return up && drained;
    });
  }
  throw new Error(`the fleet did not settle in ${maxTicks} ticks`);
}

/** The replicas of a model the agents report, by state. */
export async function of(w: LifecycleWorld, model: string, state?: string): Promise<(ReplicaReport & { node: string })[]> {
  return (await w.replicas()).filter((r) => r.model === model && (state === undefined || r.state === state));
}
