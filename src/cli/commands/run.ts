// `llmgw run`: the reconciler as a long-running process (docs/overview.md, docs/commands.md, docs/safety.md).
// Ticks on a cron schedule, with --watch when cluster.yaml or models.yaml
// changes in the checkout, out of schedule when the remote branch moves (--poll,
// a signed push webhook on --listen) or the routers report demand a tick can
// serve (--demand-poll); only while holding the lease in the remote
// (docs/operations.md#which-trigger-sees-what). One SSH
// transport with kept-alive connections serves every tick. SIGTERM or SIGINT
// lets the tick in flight finish, closes the connections and exits 0.

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { CONFIG_FILES } from '../../store/files.js';
import { parseDuration } from '../../config/duration.js';
import { LEASE_TTL_MS, processHolder } from '../../git/lease.js';
import type { Io } from '../io.js';
import { createLogger, parseLogFormat } from '../../log/logger.js';
import { parseMetricsListen } from '../../metrics/metrics-server.js';
import { REPO_OPTIONS, REPO_OPTIONS_HELP, openRepoFromOptions } from '../repo-options.js';
import { stopSignals } from '../stop-signals.js';

/** docs/safety.md: the lease's one TTL, as --lease-ttl spells it. */
const DEFAULT_LEASE_TTL = `${LEASE_TTL_MS / 60_000}m`;

/** docs/commands.md `llmgw run`: how often the remote branch and the routers are looked at. */
const DEFAULT_POLL = '15s';
const DEFAULT_DEMAND_POLL = '2s';

const HELP = `Usage: llmgw run --schedule CRON [--watch] [--repo DIR | --remote URL [--branch B] --workdir DIR]
                 [--poll DURATION|off] [--listen HOST:PORT] [--demand-poll DURATION|off]
                 [--no-push] [--lease-ttl DURATION] [--metrics HOST:PORT] [--log-format text|json]

Reconcile on a schedule: each tick pulls, validates, gathers, plans, applies,
commits STATUS.md when it changed, pushes and notifies (see llmgw reconcile).
Ticks never overlap: triggers that arrive during a tick make one more tick.
  --schedule CRON       node-cron expression, e.g. '*/5 * * * *' (six fields: seconds first)
  --watch               also tick, debounced, when cluster.yaml or models.yaml changes
                        in the checkout (kept current by another tool)
  --poll DURATION|off   tick when the remote branch moved, read with git ls-remote this
                        often (default ${DEFAULT_POLL}; off or 0: never); llmgw's own pushes
                        are not a move
  --listen HOST:PORT    receive the forge's push webhook (GitHub, GitLab, Gitea) and tick
                        at once; the secret is read from $LLMGW_PUSH_SECRET; anything
                        unsigned or wrongly signed gets 401 and starts nothing
  --demand-poll D|off   read every router's usage this often (default ${DEFAULT_DEMAND_POLL}; off or 0:
                        never): tick when requests wait for a model with no routable
                        replica or a replica is ejected as stalled, and route a starting
                        replica of such a model the moment its agent says it runs
${REPO_OPTIONS_HELP}  --no-push             commit locally, do not push the branch (the lease is still
                        taken in the remote: it guards the fleet, not the branch)
  --lease-ttl DURATION  how long a tick's lease lasts (default ${DEFAULT_LEASE_TTL}); must exceed a
                        tick plus clock skew. Instances sharing a remote take turns: only
                        the holder of refs/llmgw/lease reconciles, the others stand by. A tick
                        whose lease has less than two SSH connect+command timeouts left
                        applies nothing, and one whose lease ran out commits nothing.
  --metrics HOST:PORT   serve Prometheus metrics at http://HOST:PORT/metrics (docs/operations.md)
  --log-format F        text (default) or json: one object a line with time, level, msg
                        and tick, the id the lines of one tick share
Which trigger sees what: docs/operations.md#which-trigger-sees-what.
SIGTERM or SIGINT finishes the tick in flight (each git call then gets a few seconds),
lets the lease go and exits 0; a second one stops at once. Every git call is ended
past cluster.yaml's git.timeout (LLMGW_GIT_TIMEOUT=90s overrides it).
`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...REPO_OPTIONS,
      schedule: { type: 'string' },
      watch: { type: 'boolean', default: false },
      poll: { type: 'string' },
      listen: { type: 'string' },
      'demand-poll': { type: 'string' },
      'no-push': { type: 'boolean', default: false },
      'lease-ttl': { type: 'string' },
      metrics: { type: 'string' },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.schedule === undefined) throw new UsageError("--schedule CRON is required, e.g. --schedule '*/5 * * * *'");
  const ttlText = values['lease-ttl'] ?? DEFAULT_LEASE_TTL;
  const leaseTtlMs = parseDuration(ttlText);
  if (leaseTtlMs === null || leaseTtlMs <= 0) throw new UsageError(`--lease-ttl '${ttlText}' is not a duration (e.g. 90s, 10m, 1h30m)`);
  const metricsListen = values.metrics === undefined ? null : parseMetricsListen(values.metrics);
  const pollMs = interval('--poll', values.poll ?? DEFAULT_POLL);
  const demandPollMs = interval('--demand-poll', values['demand-poll'] ?? DEFAULT_DEMAND_POLL);
  const { parsePushListen, pushSecret, startPushReceiver } = await import('../../daemon/push-webhook.js');
  const push = values.listen === undefined ? null : { listen: parsePushListen(values.listen), secret: pushSecret(io.env) };
  const logger = createLogger({ format: parseLogFormat(values['log-format']), stdout: io.stdout, stderr: io.stderr, timestamps: true });

  const { startDaemon } = await import('../../daemon/run-daemon.js');
  const { assertSchedule } = await import('../../daemon/loop.js');
  assertSchedule(values.schedule);
  const log = logger.line;
  const signal = stopSignals(log);
  const repo = await openRepoFromOptions(values, io, { ...signal, log }).catch((err: unknown) => {
    signal.dispose();
    throw err;
  });
  // Loaded here, after the options are checked: ssh2 is heavy.
  const [{ runTick }, { cachedTransports }, { createSshTransport }, { tickSummary, tickTable }, { serveRunMetrics, observeTicks }, watchers] =
    await Promise.all([
      import('../../tick/run.js'),
      import('../../tick/transport-source.js'),
      import('../../gather/ssh-transport.js'),
      import('../../tick/report.js'),
      import('../../metrics/run-metrics.js'),
      import('../../daemon/watchers.js'),
    ]);
  const metrics = metricsListen && (await serveRunMetrics(metricsListen, { log }));
  // One transport for the life of the process: connections stay warm between ticks,
  // and are replaced only when a PR changes cluster.yaml's ssh settings.
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env: io.env, keepAlive: true }));
  let daemon;
  let stopWatchers: () => Promise<void> = () => Promise.resolve();
  try {
    daemon = startDaemon({
      repo,
      schedule: values.schedule,
      watchFiles: values.watch ? CONFIG_FILES.map((f) => join(repo.dir, f)) : undefined,
      holder: processHolder(),
      leaseTtlMs,
      now: () => new Date(),
      log,
      tick: observeTicks(metrics, logger, async (reason, leaseExpiresAt) => {
        const result = await runTick({
          leaseExpiresAt,
          repo,
          transport: (config) => transports.forConfig(config),
          env: io.env,
          now: () => new Date(),
          push: !values['no-push'],
          log,
        });
        for (const line of tickTable(result)) log(line);
        log(`tick (${reason}): ${tickSummary(result)}`);
        return result;
      }),
    });
    stopWatchers = await watchers.startWatchers({
      daemon,
      repo,
      env: io.env,
      pollMs,
      demandPollMs,
      push,
      startPushReceiver,
      transport: (config) => transports.forConfig(config),
      log,
    });
    log(`running: schedule '${values.schedule}'${values.watch ? ', watching cluster.yaml and models.yaml' : ''} in ${repo.dir}`);
    const stop = await signal.first;
    // Only a tick (or a job in its place) running now is waited for; otherwise the exit is at once.
    log(daemon.busy() ? `${stop}: finishing the tick in flight` : `${stop}: no tick in flight, stopping`);
  } finally {
    signal.dispose();
    await stopWatchers();
    await daemon?.stop();
    await transports.close();
    await metrics?.close();
  }
  log('stopped');
  return 0;
}

/** A poll interval: a duration, or `off`/`0` for none (null). */
function interval(flag: string, text: string): number | null {
  if (text === 'off' || text === '0') return null;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) throw new UsageError(`${flag} '${text}' is not a duration or off (e.g. 15s, 2s, off)`);
  return ms;
}
