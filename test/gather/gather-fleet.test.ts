import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimFleet, type SimFault, type SimHostSpec } from '../../src/sim/fleet.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import { getValidator } from '../../src/util/schema.js';
import type { AgentReportRequest, NodeObservation } from '../../src/types/snapshot.js';
import { cannedHandler, cannedReport, simConfig, simSshConfig, tempDir } from './sim-helpers.js';
import { defined } from '../helpers/defined.js';

const FAULTS: Exclude<SimFault, null>[] = ['refuse', 'hang', 'slow', 'garbage', 'exit', 'wrong-hostkey'];
const EXPECTED: Record<string, RegExp> = {
  refuse: /connection refused$/,
  hang: /no SSH handshake within 1\.5s \(connectTimeout\)$/,
  slow: /`llmgw agent report` gave no reply within 1\.5s \(commandTimeout\)$/,
  garbage: /`llmgw agent report` gave a reply that is not JSON: /,
  exit: /`llmgw agent report` exited with code 3: sim: node-\w+ failed on purpose$/,
  'wrong-hostkey': /HOST KEY CHANGED/,
};
/** The class status shows (docs/status.md), from the typed error, never from the text above. */
const REASON: Record<string, string> = {
  refuse: 'refused',
  hang: 'timeout',
  slow: 'timeout',
  garbage: 'bad-reply',
  exit: 'command-failed',
  'wrong-hostkey': 'host-key-changed',
};

test('50 nodes with one of each fault: every healthy node reachable, each faulty one its own error, within connect+command timeout', async () => {
  const tmp = tempDir('gather50');
  const specs: SimHostSpec[] = [];
  for (let i = 0; i < 44; i++) specs.push({ name: `node-${String(i).padStart(2, '0')}` });
  for (const f of FAULTS) specs.push({ name: `node-${f.replace('-', '')}`, fault: f });
  specs.push({ name: 'rt-1' }, { name: 'rt-2', fault: 'refuse' });
  const requests: AgentReportRequest[] = [];
  const fleet = await startSimFleet({
    dir: tmp.dir,
    slowMs: 4000,
    hosts: specs,
    handler: async (ctx) => {
      if (ctx.host === 'node-00') requests.push(JSON.parse(ctx.stdin));
      return cannedHandler(ctx);
    },
  });
  const ssh = simSshConfig(fleet, { connectTimeoutMs: 1500, commandTimeoutMs: 1500, concurrency: 8 });
  const config = simConfig(fleet, ssh, { routers: ['rt-1', 'rt-2'], models: ['org/b', 'org/a', 'org/b'] });
  const transport = createSshTransport(ssh);
  const progress: number[] = [];
  const started = Date.now();
  try {
    const snap = await gatherSnapshot(config, {
      transport,
      previous: null,
      state: emptyState(),
      now: () => new Date('2026-11-29T08:00:00.123Z'),
      onProgress: (p) => progress.push(p.done),
    });
    const elapsed = Date.now() - started;
    assert.is(snap.observedAt, '2026-11-29T08:00:00Z');
    assert.equal(getValidator('snapshot')(JSON.parse(JSON.stringify(snap))), { ok: true }, 'the snapshot keeps to schemas/snapshot.schema.json');
    assert.is(snap.nodes.length, 50);
    assert.equal(
      snap.nodes.map((n) => n.name),
      [...snap.nodes.map((n) => n.name)].sort(),
    );
    const bad = snap.nodes.filter((n): n is Extract<NodeObservation, { reachable: false }> => !n.reachable);
    assert.equal(bad.map((n) => n.name).sort(), FAULTS.map((f) => `node-${f.replace('-', '')}`).sort());
    for (const n of bad) {
      const fault = FAULTS.find((f) => n.name === `node-${f.replace('-', '')}`)!;
      assert.match(n.error, defined(EXPECTED[fault], `the error expected of ${fault}`), n.name);
      assert.is(n.reason, REASON[fault], n.name);
      assert.not.match(n.error, /\n/);
      assert.is(n.unreachableSince, '2026-11-29T08:00:00Z');
      assert.is(n.lastReport, null);
    }
    for (const n of snap.nodes.filter((x) => x.reachable)) {
      assert.equal(n.report, cannedReport(n.name));
    }
    assert.equal(
      snap.routers.map((r) => [r.name, r.reachable, r.reachable ? null : r.reason]),
      [
        ['rt-1', true, null],
        ['rt-2', false, 'refused'],
      ],
    );
    // The request: node name, its storage, and every distinct weights of models.yaml, sorted.
    assert.equal(requests[0], { version: 1, node: 'node-00', storage: [{ path: '/models', kind: 'local' }], weights: ['org/a', 'org/b'] });
    assert.equal(progress.length, 50);
    assert.is(progress[49], 50);
    // 44 healthy handshakes at concurrency 8 plus the slowest fault (1 s); never one fault after another.
    assert.ok(elapsed < 1500 + 1500 + 3000, `took ${elapsed} ms`);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
