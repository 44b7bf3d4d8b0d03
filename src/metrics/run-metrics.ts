// `llmgw run --metrics HOST:PORT`: the metrics server for the life of the
// process, and the wrapper that records each tick in it. Wiring for run.ts:
//
//   const metrics = listen && (await serveRunMetrics(listen, { repoDir, env, log }));
//   startDaemon({ …, tick: observeTicks(metrics, logger, async (reason, leaseExpiresAt) => result) });
//   …
//   await metrics?.close();

import type { TickReason } from '../daemon/loop.js';
import type { TickResult } from '../daemon/tick-result.js';
import type { Logger } from '../log/logger.js';
import type { StatusReport } from '../status/types.js';
import { statusFromRepo } from './fleet-status.js';
import { startMetricsServer, type Listen } from './metrics-server.js';
import { createReconcilerMetrics, type ReconcilerMetrics } from './reconciler-metrics.js';

export interface RunMetrics {
  metrics: ReconcilerMetrics;
  /** Where Prometheus scrapes, the port as bound. */
  url: string;
  /** The fleet a finished tick left, for the gauges. */
  statusAfter(result: TickResult): Promise<StatusReport | null>;
  log: (line: string) => void;
  close(): Promise<void>;
}

export interface RunMetricsOptions {
  repoDir: string;
  env: Record<string, string | undefined>;
  now?: () => Date;
  log: (line: string) => void;
}

export async function serveRunMetrics(listen: Listen, opts: RunMetricsOptions): Promise<RunMetrics> {
  const now = opts.now ?? (() => new Date());
  const metrics = createReconcilerMetrics({ now });
  const server = await startMetricsServer(listen, metrics.registry);
  opts.log(`metrics: serving Prometheus metrics on ${server.url}`);
  return {
    metrics,
    url: server.url,
    statusAfter: async (result) => {
      // An invalid config has no fleet to show; the gauges keep the last one.
      if (result.configInvalid) return null;
      // The status report the tick rendered STATUS.md from, when the tick returns it;
      // otherwise read back from the files it wrote, to the same numbers.
      const { report } = result as TickResult & { report?: StatusReport | null };
      return report !== undefined ? report : statusFromRepo(opts.repoDir, opts.env, now());
    },
    log: opts.log,
    async close() {
      metrics.leaseReleased();
      await server.close();
    },
  };
}

export type RunTick = (reason: TickReason, leaseExpiresAt: Date | undefined) => Promise<TickResult>;

/**
 * One tick of `llmgw run` as the loop calls it: its lines carry one tick id
 * (--log-format json), and with --metrics it is timed and recorded. A tick
 * that throws is logged by the loop and recorded by no metric but the age of
 * llmgw_last_tick_timestamp_seconds, which is what an alert should watch.
 */
export function observeTicks(run: RunMetrics | null, logger: Logger, tick: RunTick): (reason: TickReason, leaseExpiresAt: Date | undefined) => Promise<void> {
  return (reason, leaseExpiresAt) =>
    logger.inTick(async () => {
      if (!run) {
        await tick(reason, leaseExpiresAt);
        return;
      }
      // The loop calls a tick only while this instance holds the lease.
      run.metrics.leaseTaken(leaseExpiresAt);
      const startedAt = new Date();
      const result = await tick(reason, leaseExpiresAt);
      const finishedAt = new Date();
      const status = await run.statusAfter(result).catch((err: unknown) => {
        run.log(`warning: metrics: could not read the fleet the tick left: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      });
      run.metrics.recordTick({ startedAt, finishedAt, result, status });
    });
}
