// `llmgw run --metrics HOST:PORT`: the metrics server for the life of the
// process, and the wrapper that records each tick in it. Wiring for run.ts:
//
//   const metrics = listen && (await serveRunMetrics(listen, { log }));
//   startDaemon({ …, tick: observeTicks(metrics, logger, async (reason, leaseExpiresAt) => result) });
//   …
//   await metrics?.close();

import type { TickReason } from '../daemon/loop.js';
import type { TickResult } from '../tick/result.js';
import type { Logger } from '../log/logger.js';
import type { StatusReport } from '../status/types.js';
import { startMetricsServer, type Listen } from './metrics-server.js';
import { createReconcilerMetrics, type ReconcilerMetrics } from './reconciler-metrics.js';

export interface RunMetrics {
  metrics: ReconcilerMetrics;
  /** Where Prometheus scrapes, the port as bound. */
  url: string;
  /** The fleet a finished tick left, for the gauges: the report STATUS.md was rendered from. */
  statusAfter(result: TickResult): StatusReport | null;
  log: (line: string) => void;
  close(): Promise<void>;
}

export interface RunMetricsOptions {
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
    // An invalid config has no fleet to show (report is null): the gauges keep the last one.
    statusAfter: (result) => (result.configInvalid ? null : result.report),
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
      const status = run.statusAfter(result);
      run.metrics.recordTick({ startedAt, finishedAt, result, status });
    });
}
