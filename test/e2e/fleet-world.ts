// The end-to-end tests' world: the simulated fleet and bare remote of
// src/demo/sim-world.ts, a reconciler checkout, a people-side checkout for
// pushing config changes, and a tick that runs the real runTick over SSH.
//
// Every world also holds the broad leak check of docs/security.md
// (test/helpers/leak-check.ts): its environment carries canary secrets, its
// cluster.yaml reads them into a webhook (unless the test brings its own
// webhooks) that a local receiver records, and closing the world scans the
// remote's whole history, every tick's log lines, every webhook body and the
// generated files for a canary or a raw control character. A hit fails the
// test file, whatever its own assertions were.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAgent } from '../../src/agent/main.js';
import { createSshTransport, type SshTransportOptions } from '../../src/gather/ssh-transport.js';
import { openConfigRepo, type ConfigRepo } from '../../src/git/config-repo.js';
import { runTick, type TickOptions, type TickResult } from '../../src/tick/run.js';
import { cachedTransports } from '../../src/tick/transport-source.js';
import { cloneRemote, commitFiles, git, pullRemote } from '../../src/demo/git-remote.js';
import { startSimWorld, type SimWorld, type SimWorldOptions } from '../../src/demo/sim-world.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { CANARY, canaryEnv, leaksIn, remoteLeaks } from '../helpers/leak-check.js';

export interface E2E {
  world: SimWorld;
  repo: ConfigRepo;
  workdir: string;
  people: string;
  /** The environment the world's ticks run with (the canary secrets included): for a command a test runs itself. */
  env: Record<string, string | undefined>;
  tick(extra?: Partial<TickOptions>): Promise<TickResult>;
  /** Commit and push files from the people-side checkout, as a merged PR. */
  push(files: Record<string, string>, message: string): Promise<string>;
  remoteHead(): Promise<string>;
  /** Replica ids each node's agent reports, over all nodes. */
  replicasOnFleet(): Promise<{ id: string; node: string; state: string }[]>;
  waitRunning(count: number, timeoutMs?: number): Promise<void>;
  /**
   * Until no replica is starting: each runs or has failed. A failed one never runs (a start can
   * fail when another test file's engine took its port), and the next tick replaces it, so a
   * loop that ticks until the fleet settles waits for this, not for every replica to run.
   */
  waitStarted(timeoutMs?: number): Promise<void>;
  /** What the leak check finds so far (docs/security.md): one line per hit, empty when clean. */
  leaks(): Promise<string[]>;
  /** Closes the world; a leak found on the way fails the test file (exit code 1, the hits on stderr). */
  close(): Promise<void>;
}

/** Records every webhook body it is sent: what a receiver of llmgw's events sees. */
async function bodyRecorder(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${CANARY}`, bodies };
}

export async function startE2E(
  opts: Omit<SimWorldOptions, 'dir'> & { env?: Record<string, string | undefined>; ssh?: Pick<SshTransportOptions, 'now' | 'maxConnectionAgeMs'> } = {},
): Promise<E2E> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-e2e-'));
  const hook = await bodyRecorder();
  // The canary secrets, read by a webhook of the world's cluster.yaml unless the test brings its own.
  const webhooks = opts.webhooks ?? [
    { url: '${LLMGW_CANARY_HOOK}', secret: '${LLMGW_WEBHOOK_SECRET}', headers: { Authorization: 'Bearer ${LLMGW_CANARY_TOKEN}' } },
  ];
  const world = await startSimWorld({ ...opts, webhooks, dir });
  const workdir = join(dir, 'checkout');
  const people = join(dir, 'people');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0', ...canaryEnv(), LLMGW_CANARY_HOOK: hook.url, ...opts.env };
  const logs: string[] = [];
  const repo = await openConfigRepo({ dir: workdir, remote: world.remote, branch: 'main', env });
  await cloneRemote(world.remote, people);
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true, ...opts.ssh }));
  /** Polls the agents' reports until `unmet` finds nothing missing; past `timeoutMs` it throws what was missing. */
  const untilFleet = async (timeoutMs: number, unmet: (replicas: Awaited<ReturnType<E2E['replicasOnFleet']>>) => string | undefined) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = unmet(await e2e.replicasOnFleet());
      if (missing === undefined) return;
      if (Date.now() > deadline) throw new Error(missing);
      await sleep(200);
    }
  };
  const e2e: E2E = {
    world,
    repo,
    workdir,
    people,
    env,
    tick: (extra = {}) => {
      const log = extra.log;
      // Every line a tick logs is kept for the leak check, also when the test reads them itself.
      return runTick({
        repo,
        transport: (c) => transports.forConfig(c),
        env,
        now: () => new Date(),
        push: true,
        ...extra,
        log: (l) => (logs.push(l), log?.(l)),
      });
    },
    async push(files, message) {
      await pullRemote(people);
      return commitFiles(people, files, message);
    },
    remoteHead: () => git(world.remote, ['rev-parse', 'main']),
    async replicasOnFleet() {
      const all = await Promise.all(
        world.nodeNames.map(async (node) => {
          const out = await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), world.agentEnv(node));
          return (JSON.parse(out.stdout) as AgentReport).replicas.map((r) => ({ id: r.id, node, state: r.state }));
        }),
      );
      return all.flat().sort((a, b) => a.id.localeCompare(b.id) || a.node.localeCompare(b.node));
    },
    waitRunning: (count, timeoutMs = 20_000) =>
      untilFleet(timeoutMs, (replicas) => {
        const running = replicas.filter((r) => r.state === 'running').length;
        return running >= count ? undefined : `only ${running} of ${count} replicas running after ${timeoutMs} ms`;
      }),
    waitStarted: (timeoutMs = 30_000) =>
      untilFleet(timeoutMs, (replicas) => {
        const starting = replicas.filter((r) => r.state === 'starting');
        return starting.length === 0 ? undefined : `still starting after ${timeoutMs} ms: ${starting.map((r) => `${r.id} on ${r.node}`).join(', ')}`;
      }),
    async leaks() {
      const files = await Promise.all(
        ['STATUS.md', '.llmgw/observed.json', '.llmgw/state.json'].map(async (f) =>
          leaksIn(await readFile(join(workdir, f), 'utf8').catch(() => ''), `${f} in the checkout`),
        ),
      );
      return [
        ...(await remoteLeaks(world.remote)),
        ...leaksIn(logs.join('\n'), "the ticks' log lines"),
        ...hook.bodies.flatMap((b, i) => leaksIn(b, `webhook body ${i}`)),
        ...files.flat(),
      ];
    },
    async close() {
      const found = await e2e.leaks().catch((err: unknown) => [`the leak check could not run: ${String(err)}`]);
      await transports.close();
      await world.close();
      await new Promise((r) => hook.server.close(r));
      await rm(dir, { recursive: true, force: true });
      if (found.length > 0) {
        process.stderr.write(`LEAK CHECK FAILED (docs/security.md, test/helpers/leak-check.ts):\n${found.map((l) => `  ${l}`).join('\n')}\n`);
        process.exitCode = 1;
      }
    },
  };
  return e2e;
}
