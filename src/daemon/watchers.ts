// The triggers of `llmgw run` beside its schedule and --watch, started and
// stopped together (docs/operations.md#which-trigger-sees-what): the poll of the
// remote branch, the push webhook receiver, and the demand watch.

import { loadConfig } from '../config/load-config.js';
import { branchTips } from '../git/branch-tip.js';
import type { ConfigRepo } from '../git/config-repo.js';
import { DEFAULT_GIT_TIMEOUT_MS, gitTimeoutOverride } from '../git/runner.js';
import { parseDuration } from '../config/duration.js';
import { readState } from '../store/read.js';
import type { Config } from '../types/config.js';
import type { Transport } from '../types/transport.js';
import { startDemandWatch } from './demand-watch.js';
import type { PushListen, PushReceiver, PushReceiverOptions } from './push-webhook.js';
import { startRemotePoll } from './remote-poll.js';
import type { Daemon } from './run-daemon.js';

export interface WatcherOptions {
  daemon: Daemon;
  repo: ConfigRepo;
  env: Record<string, string | undefined>;
  /** null: no poll of the remote branch. */
  pollMs: number | null;
  /** null: no demand watch. */
  demandPollMs: number | null;
  push: { listen: PushListen; secret: string } | null;
  startPushReceiver: (opts: PushReceiverOptions) => Promise<PushReceiver>;
  /** The tick's own transport source: the demand watch rides its kept-open connections. */
  transport: (config: Config) => Transport;
  log: (line: string) => void;
}

/** Start what the options ask for; resolves with the function that stops them all. */
export async function startWatchers(opts: WatcherOptions): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const { daemon, repo, log } = opts;
    if (opts.pollMs !== null && repo.hasRemote) {
      const timeoutMs = gitTimeoutOverride(opts.env, parseDuration) ?? DEFAULT_GIT_TIMEOUT_MS;
      // A poll is one ls-remote: bounded well inside its interval, so looks never pile up.
      const tips = await branchTips(repo.dir, opts.env, { timeoutMs: Math.min(timeoutMs, Math.max(opts.pollMs, 5_000)) });
      if (tips !== null) {
        const poll = startRemotePoll({ tips, intervalMs: opts.pollMs, loop: daemon, log });
        stops.push(() => poll.stop());
        log(`polling ${tips.where} every ${opts.pollMs / 1000}s`);
      }
    }
    if (opts.push !== null) {
      const receiver = await opts.startPushReceiver({
        listen: opts.push.listen,
        secret: opts.push.secret,
        onPush: (provider) => {
          log(`push webhook (${provider}): ticking`);
          daemon.trigger('webhook');
        },
        log,
      });
      stops.push(() => receiver.close());
      log(`receiving push webhooks at ${receiver.url}`);
    }
    if (opts.demandPollMs !== null) {
      const watch = startDemandWatch({
        intervalMs: opts.demandPollMs,
        loop: daemon,
        repo,
        leased: (job) => daemon.leased(job),
        transport: opts.transport,
        now: () => new Date(),
        log,
        async load() {
          const loaded = await loadConfig(repo.dir, { env: opts.env, strictEnv: false });
          if (!loaded.ok) return null;
          return { config: loaded.config, placements: (await readState(repo.dir)).placements ?? {} };
        },
      });
      stops.push(() => watch.stop());
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
