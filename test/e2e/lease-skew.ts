// Two `llmgw run` processes on one remote, their clocks an hour apart
// (docs/safety.md#clocks, #fencing), as lease-skew-*.test.ts run it. One of
// them reads the other's lease as long expired and takes over while the first
// is still applying: the first holder's calls are slow (a slow link), the
// second's are not, so the second reaches nodes the first has yet to call.
// From the nodes' side: no host executes a request whose epoch is below one
// it has executed; the first holder stops acting at its first refusal and
// stands by from then on; the fleet ends as declared, each replica once.
//
//   clock '-1h': the first holder runs an hour behind, so its lease expired an hour ago
//                to the second (a normal clock), which takes over at its first tick.
//   clock '+1h': the second runs an hour ahead, so the first's (normal) lease expired an
//                hour ago to it; the first then reads the second's lease as written in its
//                future, counts it from when it saw it, and stands by.

import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { leaksInAll } from '../helpers/leak-check.js';
import { startE2E } from './fleet-world.js';
import { epochBreaches, epochsByHost, nodeLog, startReconciler, until, type Reconciler } from './lease-world.js';

const REPLICAS = 6;
// Whole nodes, so the apply is one `agent apply` per node: six calls, one at a time (ssh.concurrency 1).
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: a, weights: org/a, engine: vllm, gpus: 8, replicas: ${REPLICAS}, drainTimeout: 0s }
`;
const WANT = Array.from({ length: REPLICAS }, (_, i) => `a-${i}`);
/** How long a host takes over each `agent apply` of the first holder. */
const SLOW_MS = 4000;

export async function skewScenario(clock: '-1h' | '+1h'): Promise<void> {
  const log = nodeLog();
  const e = await startE2E({ modelsYaml: MODELS, commandTimeout: '10s', wrapHandler: log.wrap });
  const procs: Reconciler[] = [];
  try {
    await e.push({ 'cluster.yaml': e.world.clusterYaml.replace(/concurrency: \d+/, 'concurrency: 1') }, 'One SSH call at a time');
    const start = (name: string, skewed: boolean) => {
      const p = startReconciler({
        remote: e.world.remote,
        workdir: join(e.world.dir, name),
        env: e.env,
        leaseTtl: '5m',
        ...(skewed ? { clock } : {}),
      });
      procs.push(p);
      return p;
    };
    const first = start('first', clock === '-1h');
    log.slowApply((a) => (first.is(a.holder) ? SLOW_MS : 0));
    const byFirst = () => log.asked.filter((a) => first.is(a.holder));
    await until('a node to execute the first holder’s apply', () => byFirst().some((a) => a.kind === 'apply' && a.executed === true));

    const second = start('second', clock === '+1h');
    await second.waitFor(/holding the lease as /);
    await until('a node to refuse the first holder', () => byFirst().some((a) => a.executed === false));
    await first.waitFor(/fenced: epoch \d+ < \d+: another holder has acted since; stopped acting, committing nothing/);
    // Its tick's line says what it did before the refusal, not "nothing applied".
    await first.waitFor(/tick \(start\): 6 action\(s\) planned; fenced after started [1-6], stopped 0: another holder has acted since; no commit \(fenced\)$/);
    const standby = first.lines.indexOf(await first.waitFor(/standing by: the lease is held by /));
    if (clock === '+1h') {
      // A lease written in the reader's future counts from when it was seen, and the reader says so (docs/safety.md#clocks).
      const said = first.lines.findIndex((l) => /warning: the lease of \S+ was written at \S+, in the future of this clock/.test(l));
      assert.ok(said >= 0 && said < standby, `the first holder says the lease lies in its future before standing by:\n${first.lines.join('\n')}`);
    }

    const fleetIsDeclared = async () => {
      const fleet = await e.replicasOnFleet();
      return fleet.length === REPLICAS && fleet.every((r) => r.state === 'running') && fleet.map((r) => r.id).join() === WANT.join();
    };
    await until('the fleet to be as declared', fleetIsDeclared);
    // Two more ticks of the holder: the fleet stays as declared, nothing more is done.
    const ticks = second.count(/tick \(schedule\): /);
    await until('two more ticks', () => second.count(/tick \(schedule\): /) >= ticks + 2);
    assert.ok(await fleetIsDeclared(), `each of ${WANT.join(', ')} running once: ${JSON.stringify(await e.replicasOnFleet())}`);

    // From the nodes' side.
    const order = epochsByHost(log.asked);
    // LLMGW_E2E_VERBOSE=1: what each host executed (e.g. `a2`) or refused (`a1✗`), and both processes' lines.
    if (process.env.LLMGW_E2E_VERBOSE === '1') process.stderr.write(`${order}\n--- first\n${first.lines.join('\n')}\n--- second\n${second.lines.join('\n')}\n`);
    assert.equal(epochBreaches(log.asked), [], order);
    const firstEpochs = new Set(byFirst().map((a) => a.epoch));
    const secondAsked = log.asked.filter((a) => second.is(a.holder));
    const secondEpochs = new Set(secondAsked.map((a) => a.epoch));
    assert.is(firstEpochs.size, 1, `the first holder used one epoch: ${[...firstEpochs].join(', ')}`);
    assert.is(secondEpochs.size, 1, `the second holder used one epoch: ${[...secondEpochs].join(', ')}`);
    assert.ok([...secondEpochs][0]! > [...firstEpochs][0]!, `the takeover raised the epoch:\n${order}`);
    assert.ok(
      secondAsked.every((a) => a.executed !== false),
      `the holder of the highest epoch is never refused:\n${order}`,
    );
    // The first holder stopped at its first refusal: nothing of it reached a node after that answer.
    const refusedAt = Math.min(
      ...byFirst()
        .filter((a) => a.executed === false)
        .map((a) => a.done),
    );
    assert.equal(
      byFirst()
        .filter((a) => a.arrived > refusedAt)
        .map((a) => `${a.kind} ${a.host}`),
      [],
      `the first holder asked nothing after it was fenced:\n${order}`,
    );
    // Only the two processes ever acted, and the remote holds their work.
    assert.ok(
      log.asked.every((a) => first.is(a.holder) || second.is(a.holder)),
      'every changing request came from one of the two',
    );
    assert.is(await first.stop(), 0, first.lines.join('\n'));
    assert.is(await second.stop(), 0, second.lines.join('\n'));
    // Both ran with the world's canary secrets in their environment (fleet-world.ts): none reached their log lines.
    assert.equal(leaksInAll({ first: first.lines.join('\n'), second: second.lines.join('\n') }), []);
  } finally {
    for (const p of procs) await p.stop();
    await e.close();
  }
}
