// The fault-injection driver (docs/operations.md#crash-only): a simulated fleet running
// the real agent over SSH, a real bare remote, two webhook receivers (one
// flaky) and a person pushing commits, while a reconciler process is killed
// with SIGKILL at a named moment of its tick (LLMGW_CRASH_AT, test only).
// After each kill, normal ticks run — with a clock past the lease's TTL, as a
// restarted or standby instance would see it — until the fleet converges, and
// the invariants are counted: each desired replica running exactly once,
// nothing lost on the remote, no lease stuck beyond its TTL, every event
// delivered to every hook at least once under one id. Seeded: the same seed
// tries the same moments with the same delays and the same person's moves.
// Used by crash-*.test.ts (one kill per moment) and soak.ts (npm run soak).

import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { leasedTick } from '../../src/tick/run.js';
import { cachedTransports } from '../../src/tick/transport-source.js';
import { git } from '../../src/demo/git-remote.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { openConfigRepo, type ConfigRepo } from '../../src/git/config-repo.js';
import { hookKey } from '../../src/notify/outbox.js';
import type { State } from '../../src/types/state.js';
import { prng } from '../helpers/prng.js';
import { startE2E, type E2E } from './fleet-world.js';

/** Every moment a kill is tried at (src/util/crash-point.ts). */
export const MOMENTS = [
  'lease',
  'git:fetch',
  'git:merge',
  'git:rebase',
  'gather',
  'apply:stop',
  'apply:start',
  'apply:tables',
  'write',
  'git:add',
  'git:commit',
  'git:push',
  'notify',
] as const;
export type Moment = (typeof MOMENTS)[number];

// drainTimeout 0s: a stop happens in the tick that plans it, so the kill at
// apply:stop has a stop to interrupt (drains across ticks: test/e2e/drain-streams).
const CONFIG_A = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: a, weights: org/a, engine: vllm, gpus: 8, replicas: 2, drainTimeout: 0s }
  - { name: b, weights: org/b, engine: vllm, gpus: 4, replicas: 1, drainTimeout: 0s }
`;
// B adds a model no GPU class fits: model.unplaceable fires once each time it comes back.
const CONFIG_B = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: a, weights: org/a, engine: vllm, gpus: 8, replicas: 1, drainTimeout: 0s }
  - { name: b, weights: org/b, engine: vllm, gpus: 4, replicas: 2, drainTimeout: 0s }
  - { name: ghost, weights: org/ghost, engine: vllm, gpuClass: NOPE, gpus: 1, replicas: 1, drainTimeout: 0s }
`;
const DESIRED = { A: { a: 2, b: 1 }, B: { a: 1, b: 2 } } as const;

const LEASE_TTL_MS = 10 * 60_000;
const CHILD = fileURLToPath(new URL('./crash-child.js', import.meta.url));

interface Received {
  id: string;
  event: string;
  subject: string;
}

interface Receiver {
  url: string;
  got: Received[];
  close(): Promise<void>;
}

async function receiver(fails: () => boolean): Promise<Receiver> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (fails()) return void res.writeHead(503).end();
      const e = JSON.parse(body) as { event: string; subject: string };
      got.push({ id: String(req.headers['webhook-id']), event: e.event, subject: e.subject });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Kill {
  moment: Moment;
  delayMs: number;
}

export interface FaultReport {
  kills: number;
  /** Kills whose moment the child reached (it died by SIGKILL). */
  reached: number;
  moments: string[];
  /** Moments tried whose child finished its tick instead (the moment never came). */
  notReached: string[];
  /** Replica ids seen on more than one node after a kill's recovery. */
  duplicates: number;
  /** Kills after which the fleet did not converge, or the lease was held past its TTL. */
  stuck: number;
  /** A person's commits missing from the remote's main at the end. */
  lostCommits: number;
  /** (event id, hook) pairs committed to the outbox and never received. */
  undelivered: number;
  /** Event ids received that no committed state ever held (sent before being committed). */
  uncommittedSends: number;
  /** Transitions of the ghost model received under more than one id (per hook). */
  extraIds: number;
  /** Ticks after a kill that failed (a fresh git lock, usually) and were tried again. */
  retriedTicks: number;
  /** What the kills left in the checkout, by kind (index.lock, rebase-merge, a temporary file, …), before the next tick repaired it. */
  leftovers: Record<string, number>;
  log: string[];
}

export async function faultRun(opts: { seed: number; kills: Kill[]; log?: (line: string) => void }): Promise<FaultReport> {
  const rand = prng(opts.seed);
  const note = (line: string) => {
    report.log.push(line);
    opts.log?.(line);
  };
  const report: FaultReport = {
    kills: 0,
    reached: 0,
    moments: [],
    notReached: [],
    duplicates: 0,
    stuck: 0,
    lostCommits: 0,
    undelivered: 0,
    uncommittedSends: 0,
    extraIds: 0,
    retriedTicks: 0,
    leftovers: {},
    log: [],
  };
  const steady = await receiver(() => false);
  const flaky = await receiver(() => rand() < 0.3);
  const hookEnv = { HOOK_A: steady.url, HOOK_B: flaky.url, HOOK_SECRET: 'fault-secret' };
  let e: E2E | null = null;
  try {
    e = await startE2E({
      modelsYaml: CONFIG_A,
      webhooks: [{ url: '${HOOK_A}' }, { url: '${HOOK_B}', secret: '${HOOK_SECRET}' }],
      env: hookEnv,
    });
    const world = e;
    // The world's environment: the leak check's canaries are in every process this run starts too.
    const env = { ...world.env };
    // Short git timeout: a lock a kill left is stale after two seconds, not a minute.
    const recover = await openConfigRepo({ dir: world.workdir, remote: world.world.remote, branch: 'main', env: { ...env, LLMGW_GIT_TIMEOUT: '2s' } });
    const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    const scenario = { config: 'A' as 'A' | 'B' };
    const peopleCommits: string[] = [];
    let ghostOpens = 0;

    const personPush = async (files: Record<string, string>, message: string) => {
      const sha = await world.push(files, message);
      peopleCommits.push(sha);
    };
    const flip = async () => {
      scenario.config = scenario.config === 'A' ? 'B' : 'A';
      if (scenario.config === 'B') ghostOpens += 1;
      await personPush({ 'models.yaml': scenario.config === 'A' ? CONFIG_A : CONFIG_B }, `scale to ${scenario.config}`);
    };

    /** What a tick after a kill had to repair, for the log. */
    const repairs = (why: string, line: string) => {
      if (/^(warning: |removed a stale|undid |a fast-forward)/.test(line)) note(`${why}: ${line}`);
    };

    /** Normal ticks until the fleet is as desired, every replica running, nothing owed to a hook. */
    const converge = async (why: string): Promise<boolean> => {
      for (let i = 0; i < 25; i++) {
        let r;
        try {
          r = await leasedTick({
            repo: recover,
            holder: 'recover@fault',
            transport: (c) => transports.forConfig(c),
            env,
            now,
            push: true,
            log: (l) => repairs(why, l),
          });
        } catch (err) {
          report.retriedTicks += 1;
          if (i > 2) note(`${why}: tick ${i} failed: ${(err as Error).message}`);
          await sleep(2100);
          continue;
        }
        if (!r.held) {
          note(`${why}: the lease is held by ${r.holder} until ${r.expiresAt}, past its TTL`);
          return false;
        }
        const fleet = await world.replicasOnFleet();
        const want = DESIRED[scenario.config];
        const byModel = (m: string) => new Set(fleet.filter((x) => x.id.startsWith(`${m}-`)).map((x) => x.id)).size;
        const settled = r.result.plan?.actions.length === 0 && fleet.every((x) => x.state === 'running') && byModel('a') === want.a && byModel('b') === want.b;
        const state = JSON.parse(await git(world.world.remote, ['show', 'main:.llmgw/state.json'])) as State;
        if (settled && state.outbox.length === 0 && r.result.pushError === null && !(await recover.unpushed())) return true;
        await sleep(250);
      }
      note(`${why}: no convergence`);
      return false;
    };

    const countDuplicates = async (): Promise<number> => {
      const fleet = await world.replicasOnFleet();
      const nodes = new Map<string, Set<string>>();
      for (const x of fleet) nodes.set(x.id, (nodes.get(x.id) ?? new Set()).add(x.node));
      return [...nodes.values()].filter((s) => s.size > 1).length;
    };

    const runChild = async (k: Kill): Promise<NodeJS.Signals | null> => {
      const child = spawn(process.execPath, [CHILD, world.workdir, world.world.remote, String(offset)], {
        env: { ...env, LLMGW_CRASH_AT: `${k.moment}@${k.delayMs}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      // A person pushes while the reconciler works, now and then: the push race.
      const racing =
        rand() < 0.5 ? sleep(Math.floor(rand() * 400)).then(() => personPush({ [`notes/${peopleCommits.length}.md`]: 'a note\n' }, 'a note')) : null;
      const signal = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      await racing;
      if (signal !== 'SIGKILL') note(`${k.moment}: the tick finished without reaching the moment: ${out.trim().split('\n').slice(-2).join(' | ')}`);
      return signal;
    };

    if (!(await converge('start'))) report.stuck += 1;
    for (const k of opts.kills) {
      report.kills += 1;
      // notify needs an event this tick: the flip to B brings the ghost back.
      if (k.moment === 'notify' && scenario.config === 'B') {
        await flip();
        if (!(await converge('notify setup'))) report.stuck += 1;
      }
      await flip();
      if (k.moment === 'git:rebase') {
        // A commit of ours the remote lacks, and a person's commit after it: the next sync must rebase.
        const local = await leasedTick({
          repo: recover,
          holder: 'recover@fault',
          transport: (c) => transports.forConfig(c),
          env,
          now,
          push: false,
          log: () => undefined,
        });
        if (!local.held) report.stuck += 1;
        await personPush({ [`notes/${peopleCommits.length}.md`]: 'a note\n' }, 'a note before the rebase');
      }
      const signal = await runChild(k);
      if (signal === 'SIGKILL') {
        report.reached += 1;
        if (!report.moments.includes(k.moment)) report.moments.push(k.moment);
      } else report.notReached.push(k.moment);
      for (const l of leftoversIn(world.workdir)) report.leftovers[l] = (report.leftovers[l] ?? 0) + 1;
      // Whoever ticks next sees the clock past the dead holder's lease.
      offset += LEASE_TTL_MS + 60_000;
      if (!(await converge(`${k.moment}@${k.delayMs}`))) report.stuck += 1;
      const dups = await countDuplicates();
      if (dups > 0) note(`${k.moment}@${k.delayMs}: ${dups} replica id(s) on two nodes`);
      report.duplicates += dups;
    }

    // Nothing a person pushed is lost.
    for (const sha of peopleCommits) {
      const kept = await git(world.world.remote, ['merge-base', '--is-ancestor', sha, 'main']).then(
        () => true,
        () => false,
      );
      if (!kept) report.lostCommits += 1;
    }
    // Every event committed for a hook reached it, under the id it was committed with.
    const committed = new Map<string, Set<string>>();
    const shas = (await git(world.world.remote, ['log', '--format=%H', 'main', '--', '.llmgw/state.json'])).split('\n').filter(Boolean);
    for (const sha of shas) {
      const state = JSON.parse(await git(world.world.remote, ['show', `${sha}:.llmgw/state.json`])) as Partial<State>;
      for (const o of state.outbox ?? []) committed.set(o.id, new Set([...(committed.get(o.id) ?? []), ...o.hooks]));
    }
    for (const [rx, url] of [
      [steady, steady.url],
      [flaky, flaky.url],
    ] as const) {
      const key = hookKey({ url });
      const got = new Set(rx.got.map((g) => g.id));
      for (const [id, hooks] of committed) if (hooks.has(key) && !got.has(id)) report.undelivered += 1;
      for (const id of got) if (!committed.has(id)) report.uncommittedSends += 1;
      const ghostIds = new Set(rx.got.filter((g) => g.event === 'model.unplaceable' && g.subject === 'ghost').map((g) => g.id)).size;
      report.extraIds += Math.max(0, ghostIds - ghostOpens);
      if (ghostIds < ghostOpens) report.undelivered += ghostOpens - ghostIds;
    }
    await transports.close();
    return report;
  } finally {
    await e?.close();
    await steady.close();
    await flaky.close();
  }
}

/** What a killed process may leave in a checkout: git's locks and half-done operations, our temporary files. */
function leftoversIn(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const r = rel === '' ? n : `${rel}/${n}`;
      if (n.endsWith('.lock') || n.endsWith('.tmp'))
        out.push(
          r
            .replace(/next-index-\d+\.lock$/, 'next-index-<pid>.lock')
            .replace(/\.\d+\.\d+\.tmp$/, '.<pid>.tmp')
            .replace(/^\.git\/refs\/.*\.lock$/, '.git/refs/….lock'),
        );
      else if (['rebase-merge', 'rebase-apply', 'MERGE_AUTOSTASH', 'MERGE_HEAD', 'llmgw-op'].includes(n)) out.push(r);
      else if (statSync(p).isDirectory() && n !== 'objects' && n !== 'node_modules') walk(p, r);
    }
  };
  walk(dir, '');
  return out;
}

/** A seeded delay into a git call (ms); other moments die the instant they are reached. */
export function killsFor(moments: readonly Moment[], seed: number): Kill[] {
  const rand = prng(seed ^ 0x5eed);
  return moments.map((moment) => ({ moment, delayMs: moment.startsWith('git:') ? Math.floor(rand() * 30) : 0 }));
}

export type { ConfigRepo };
export { prng };

/** What must be nought after every kill (docs/operations.md#crash-only): a run's damage, counted by kind. */
export function damage(r: FaultReport): Pick<FaultReport, 'duplicates' | 'stuck' | 'lostCommits' | 'undelivered' | 'uncommittedSends' | 'extraIds'> {
  const { duplicates, stuck, lostCommits, undelivered, uncommittedSends, extraIds } = r;
  return { duplicates, stuck, lostCommits, undelivered, uncommittedSends, extraIds };
}

/** damage() of a run that lost nothing. */
export const NO_DAMAGE = { duplicates: 0, stuck: 0, lostCommits: 0, undelivered: 0, uncommittedSends: 0, extraIds: 0 };
