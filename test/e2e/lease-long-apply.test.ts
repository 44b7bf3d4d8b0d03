// An apply that outlasts the lease (docs/safety.md#clocks): every node takes
// long over `agent apply`, there are more calls than ssh.concurrency lets run
// at once, and the lease is short. The holder cuts its apply at a step
// boundary once `expiry − safety` has passed on its own clock, so every call
// it made has ended before its lease does; then its host freezes (SIGSTOP:
// it cannot renew), the standby takes over once the lease has run out, with a
// higher epoch, and starts what was left; the old holder, resumed, asks the
// nodes nothing more and stands by. No node executes a lower epoch after a
// higher one, and the fleet ends as declared, each replica once.

import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { leaksInAll } from '../helpers/leak-check.js';
import { startE2E } from './fleet-world.js';
import { epochBreaches, epochsByHost, nodeLog, startReconciler, until, type Reconciler } from './lease-world.js';

const REPLICAS = 8;
// Whole nodes: one `agent apply` per node, eight calls, two at a time (ssh.concurrency 2).
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: a, weights: org/a, engine: vllm, gpus: 8, replicas: ${REPLICAS}, drainTimeout: 0s }
`;
const WANT = Array.from({ length: REPLICAS }, (_, i) => `a-${i}`);
/**
 * Each `agent apply` takes this long, under ssh.commandTimeout (15s). With
 * connectTimeout 5s the safety is 20s, and a 50s lease leaves 30s to start
 * calls in: three rounds of two at most, never all four.
 */
const SLOW_MS = 10_000;
const SAFETY_MS = 20_000;

test('a holder cuts an apply that outlasts its lease at a step boundary before expiry − safety; the standby takes over after expiry, finishes the rest; nodes never go back an epoch', async () => {
  const log = nodeLog();
  log.slowApply(() => SLOW_MS);
  const e = await startE2E({ modelsYaml: MODELS, commandTimeout: '15s', wrapHandler: log.wrap });
  const procs: Reconciler[] = [];
  try {
    await e.push({ 'cluster.yaml': e.world.clusterYaml.replace(/concurrency: \d+/, 'concurrency: 2') }, 'Two SSH calls at a time');
    const start = (name: string) => {
      const p = startReconciler({ remote: e.world.remote, workdir: join(e.world.dir, name), env: e.env, leaseTtl: '50s' });
      procs.push(p);
      return p;
    };
    const holder = start('holder');
    const held = await holder.waitFor(/holding the lease as \S+ until /);
    const expiry = Date.parse(/until (\S+)$/.exec(held)![1]!);
    const standby = start('standby');
    await standby.waitFor(/standing by: the lease is held by /);

    const cut = await holder.waitFor(
      /apply cut at a step boundary: the lease's deadline passed \(expiry \S+ less 20s\); \d+ action\(s\) left for the next tick/,
    );
    // Its host freezes right after: no renewal, so the lease runs out and the standby's next tick takes it.
    holder.signal('SIGSTOP');
    const left = Number(/(\d+) action\(s\) left/.exec(cut)![1]);
    const byHolder = () => log.asked.filter((a) => holder.is(a.holder));
    const byStandby = () => log.asked.filter((a) => standby.is(a.holder));
    await standby.waitFor(/holding the lease as /);
    await until('the standby to ask a node', () => byStandby().length > 0);
    holder.signal('SIGCONT');

    const fleetIsDeclared = async () => {
      const fleet = await e.replicasOnFleet();
      return fleet.length === REPLICAS && fleet.every((r) => r.state === 'running') && fleet.map((r) => r.id).join() === WANT.join();
    };
    await until('the fleet to be as declared', fleetIsDeclared);
    const ticks = standby.count(/tick \(schedule\): /);
    await until('two more ticks', () => standby.count(/tick \(schedule\): /) >= ticks + 2);
    assert.ok(await fleetIsDeclared(), `each of ${WANT.join(', ')} running once: ${JSON.stringify(await e.replicasOnFleet())}`);
    // The resumed holder reads the standby's lease and stands by.
    await until('the old holder to stand by', () =>
      holder.lines.some((l) => l.includes(`standing by: the lease is held by `) && standby.is(l.split('held by ')[1] ?? '')),
    );

    const order = epochsByHost(log.asked);
    if (process.env.LLMGW_E2E_VERBOSE === '1')
      process.stderr.write(`${order}\n--- holder\n${holder.lines.join('\n')}\n--- standby\n${standby.lines.join('\n')}\n`);
    assert.equal(epochBreaches(log.asked), [], order);
    const mine = byHolder().filter((a) => a.kind === 'apply');
    assert.ok(mine.length > 0 && mine.length < REPLICAS, `the holder made some calls and not all: ${mine.length}`);
    assert.ok(left > 0, cut);
    // Every call the holder started began before expiry − safety and ended before its lease did: two holders never act at once.
    for (const a of byHolder()) {
      assert.ok(a.arrivedAt < expiry - SAFETY_MS + SLOW_MS, `${a.kind} on ${a.host} arrived ${a.arrivedAt - expiry} ms from expiry`);
      assert.ok(a.doneAt >= 0 && a.doneAt < expiry, `${a.kind} on ${a.host} ended ${a.doneAt - expiry} ms from the expiry: after the lease ran out`);
    }
    // The standby acted only once the lease had run out, with a higher epoch, and was never refused.
    const firstOfStandby = Math.min(...byStandby().map((a) => a.arrivedAt));
    assert.ok(firstOfStandby >= expiry, `the standby asked a node ${expiry - firstOfStandby} ms before the lease ran out`);
    assert.ok(Math.min(...byStandby().map((a) => a.epoch)) > Math.max(...byHolder().map((a) => a.epoch)), order);
    assert.ok(
      byStandby().every((a) => a.executed !== false),
      order,
    );
    // Resumed, the old holder asked no node anything: nothing of it arrived after the standby's first request.
    const firstSeq = Math.min(...byStandby().map((a) => a.arrived));
    assert.equal(
      byHolder()
        .filter((a) => a.arrived > firstSeq)
        .map((a) => `${a.kind} ${a.host}`),
      [],
      order,
    );
    // What the holder started and what the standby started are the declared replicas, each once: the rest was left, then done.
    const startedBy = (asked: typeof mine) => asked.filter((a) => a.kind === 'apply' && a.executed === true).flatMap((a) => a.starts);
    const fromHolder = startedBy(byHolder());
    const fromStandby = startedBy(byStandby());
    assert.equal([...fromHolder, ...fromStandby].sort(), WANT, `holder ${fromHolder.join(', ')}; standby ${fromStandby.join(', ')}`);
    assert.is(fromStandby.length, left, 'the standby started exactly what the cut left');
    assert.is(await holder.stop(), 0, holder.lines.join('\n'));
    assert.is(await standby.stop(), 0, standby.lines.join('\n'));
    // Both ran with the world's canary secrets in their environment (fleet-world.ts): none reached their log lines.
    assert.equal(leaksInAll({ holder: holder.lines.join('\n'), standby: standby.lines.join('\n') }), []);
  } finally {
    for (const p of procs) await p.stop();
    await e.close();
  }
});

test.run();
