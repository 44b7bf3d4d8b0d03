// `llmgw demo`: the simulated fleet of examples/demo, reconciled by the very
// tick a production fleet runs (src/tick/run.ts): the first tick starts
// replicas, the second sees them running and commits STATUS.md.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSshTransport } from '../gather/ssh-transport.js';
import { openConfigRepo } from '../git/config-repo.js';
import { leasedTick } from '../tick/run.js';
import type { TickResult } from '../tick/run.js';
import { cachedTransports } from '../tick/transport-source.js';
import type { Plan } from '../types/plan.js';
import { planTable, tickSummary } from '../tick/report.js';
import { LlmgwError } from '../errors.js';
import { git } from './git-remote.js';
import { startSimWorld, type SimWorld, type SimWorldOptions } from './sim-world.js';

export interface DemoOptions {
  keep: boolean;
  out: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Resolves when a --keep demo should stop (Ctrl-C). */
  stopped: Promise<void>;
  /** Seconds between --keep ticks. */
  intervalSeconds?: number;
  /** One's own config (`--repo DIR`) instead of examples/demo: where it is, how it is named, its hardware. */
  own?: Pick<SimWorldOptions, 'exampleDir' | 'hardware' | 'origin'>;
  /** Whether cluster.yaml lists a router (examples/demo does): the demo then sends one request through it. */
  hasRouter?: boolean;
}

/**
 * Wait until every replica the plan started answers its health check on every
 * node it spans (each rank's agent reports it; it runs only when all do), or
 * the time is up. Returns how many replicas answer on all their nodes.
 */
async function waitHealthy(plan: Plan, world: SimWorld, timeoutMs: number): Promise<number> {
  const replicas = plan.actions.flatMap((a) =>
    a.op === 'start' ? [a.placement.map((p) => `http://${String(world.hostOf.get(p.node))}:${a.port}/health`)] : [],
  );
  const urls = [...new Set(replicas.flat())];
  const deadline = Date.now() + timeoutMs;
  const healthy = new Set<string>();
  while (healthy.size < urls.length && Date.now() < deadline) {
    await Promise.all(
      urls
        .filter((u) => !healthy.has(u))
        .map(async (u) => {
          const ok = await fetch(u, { signal: AbortSignal.timeout(1000) }).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) healthy.add(u);
        }),
    );
    if (healthy.size < urls.length) await sleep(200);
  }
  return replicas.filter((ranks) => ranks.every((u) => healthy.has(u))).length;
}

/** One chat completion through the router, as a user of the fleet would send it. */
async function askRouter(port: number, model: string): Promise<string> {
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello?' }] });
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) });
    const reply = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    return `POST ${url} (model ${model}) -> ${res.status}: ${reply.choices?.[0]?.message?.content ?? JSON.stringify(reply)}`;
  } catch (err) {
    return `POST ${url} (model ${model}) failed: ${(err as Error).message}`;
  }
}

export async function runDemo(opts: DemoOptions): Promise<number> {
  const started = Date.now();
  const { out } = opts;
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-demo-'));
  out(`llmgw demo: starting a simulated fleet${opts.own?.origin ? ` for ${opts.own.origin}` : ''} in ${dir}\n`);
  const world = await startSimWorld({ dir, ...opts.own });
  const workdir = join(dir, 'checkout');
  const env = { ...opts.env, GIT_TERMINAL_PROMPT: '0' };
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
  try {
    const addresses = world.sim.hosts.map((h) => h.host);
    const routers = world.sim.hosts.length - world.nodeNames.length;
    const who = `${world.nodeNames.length} nodes${routers > 0 ? ` and ${routers === 1 ? 'a router' : `${routers} routers`}` : ''}`;
    out(`${who}, each a real SSH server on its own loopback address (${addresses[0] ?? ''} … ${addresses[addresses.length - 1] ?? ''});\n`);
    out(`the config repo is a bare git remote: ${world.remote}\n\n`);
    const repo = await openConfigRepo({ dir: workdir, remote: world.remote, branch: 'main', env });
    // The same leased tick as `llmgw reconcile`: a `llmgw run` pointed at this
    // remote would take turns with the demo, not race it.
    const tick = async (n: number): Promise<TickResult> => {
      const t = await leasedTick({
        repo,
        transport: (config) => transports.forConfig(config),
        env,
        now: () => new Date(),
        push: true,
        log: (line) => out(`  tick ${n}: ${line}\n`),
      });
      if (!t.held) throw new LlmgwError(`the lease of ${world.remote} is held by ${t.holder} until ${t.expiresAt}`);
      return t.result;
    };

    out('== Tick 1: pull, gather, plan, apply, commit\n');
    const first = await tick(1);
    if (first.plan) out(`\n${planTable(first.plan).join('\n')}\n\n`);
    out(`${tickSummary(first)}\n\n`);
    if (first.plan) {
      const starts = first.plan.actions.filter((a) => a.op === 'start').length;
      const up = await waitHealthy(first.plan, world, 60_000);
      out(`${up} of ${starts} new replicas answer their health check.\n\n`);
    }
    out('== Tick 2: the replicas are observed running\n');
    const second = await tick(2);
    out(`${tickSummary(second)}\n\n`);
    out('== STATUS.md\n\n' + second.status + '\n');
    const model = second.plan?.actions[0]?.model ?? first.plan?.actions[0]?.model;
    if (model && opts.hasRouter !== false) out(`== A request through the router\n\n${await askRouter(world.routerPort, model)}\n\n`);
    out('== git log of the config repo\n\n' + (await git(workdir, ['log', '--format=%h %s  (%an)'])) + '\n\n');
    out(`The reconciler's checkout: ${workdir}\n  git -C ${workdir} log --stat\n`);
    if (opts.keep) {
      out(`\nThe router serves http://127.0.0.1:${world.routerPort}/v1/chat/completions; ticking every ${opts.intervalSeconds ?? 10} s, Ctrl-C stops.\n`);
      for (let n = 3; ; n++) {
        // The wait is cancelled on Ctrl-C: a pending timer would keep the process up for the rest of it.
        const pause = new AbortController();
        const waited = sleep((opts.intervalSeconds ?? 10) * 1000, false, { signal: pause.signal }).catch(() => false);
        const stop = await Promise.race([opts.stopped.then(() => true), waited]);
        pause.abort();
        if (stop) break;
        const r = await tick(n);
        out(`  tick ${n}: ${tickSummary(r)}\n`);
      }
    }
    out(
      `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. Stopped every engine, SSH server and the router; the repo stays in ${dir} (rm -rf it when done).\n`,
    );
    return 0;
  } finally {
    await transports.close();
    await world.close();
  }
}
