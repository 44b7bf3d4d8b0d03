// The demand trigger and the fast route (docs/operations.md#which-trigger-sees-what):
// requests waiting at a router for a model with no routable replica, or a replica
// ejected as stalled, ask for a tick — once per appearance, again only after the
// repeat time and never while the model has a replica starting; a starting replica
// of a model with waiting requests is routed the moment its agent says it runs,
// under the lease, with nothing removed from any table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demandConditions, demandTrigger, startingModels } from '../../src/daemon/demand.js';
import { demandWatch } from '../../src/daemon/demand-watch.js';
import { startingForDemand, tablesWith } from '../../src/daemon/fast-route.js';
import type { LeaseRefs } from '../../src/git/config-repo.js';
import type { RouterObservation, RouterUsage } from '../../src/types/snapshot.js';
import type { PlacementRecord } from '../../src/types/state.js';
import type { Transport } from '../../src/types/transport.js';
import { config, model, nodeConfig } from '../fixtures/config.js';

const T = '2026-12-02T03:00:00Z';

function usage(extra: Partial<RouterUsage> = {}): RouterUsage {
  return { version: 1, startedAt: T, lastUsed: {}, inflight: {}, ...extra };
}
const rt = (name: string, report: RouterUsage): RouterObservation => ({ name, reachable: true, report });

const placements: Record<string, PlacementRecord> = {
  'qwen-0': { model: 'qwen', state: 'starting', ranks: [{ node: 'n1', gpus: [0], rank: 0 }], port: 8001 },
  'phi-0': { model: 'phi', state: 'running', ranks: [{ node: 'n2', gpus: [0], rank: 0 }], port: 8000 },
};

test('waiting requests are one condition per model, summed over routers; a stalled ejection is one per replica; errors are none', () => {
  const routers: RouterObservation[] = [
    rt('rt-a', usage({ waiting: { qwen: { count: 3, oldest: T }, phi: { count: 0, oldest: T } } })),
    rt('rt-b', usage({ waiting: { qwen: { count: 2, oldest: T } }, ejected: { 'phi-0': { since: T, until: T, reason: 'stalled', count: 1 } } })),
    rt('rt-c', usage({ ejected: { 'phi-0': { since: T, until: T, reason: 'stalled', count: 1 }, 'x-0': { since: T, until: T, reason: 'errors', count: 1 } } })),
    { name: 'rt-d', reachable: false, error: 'timeout' },
  ];
  const c = demandConditions(routers, (id) => placements[id]?.model);
  assert.equal(
    c.map((x) => [x.key, x.model, x.why]),
    [
      ['waiting:qwen', 'qwen', '5 waiting for qwen at rt-a, rt-b'],
      ['stalled:phi-0', 'phi', 'phi-0 ejected as stalled by rt-b'],
    ],
  );
});

test('a condition triggers when it appears, not again while it lasts, again after repeatMs unless its model has a replica starting', () => {
  const fire = demandTrigger(10_000);
  const w = { key: 'waiting:qwen', model: 'qwen', why: '' };
  const s = { key: 'stalled:phi-0', model: 'phi', why: '' };
  const none = new Set<string>();
  assert.equal(
    fire([w], none, 0).map((c) => c.key),
    ['waiting:qwen'],
  );
  assert.equal(fire([w], none, 5_000), []);
  assert.equal(
    fire([w, s], none, 6_000).map((c) => c.key),
    ['stalled:phi-0'],
    'a new condition fires beside a lasting one',
  );
  assert.equal(fire([w, s], new Set(['qwen']), 11_000), [], 'qwen starts a replica: another tick cannot help; phi was fired at 6s');
  assert.equal(
    fire([w, s], none, 16_000).map((c) => c.key),
    ['waiting:qwen', 'stalled:phi-0'],
  );
  assert.equal(fire([], none, 17_000), []);
  assert.equal(
    fire([w], none, 18_000).map((c) => c.key),
    ['waiting:qwen'],
    'gone and back is new',
  );
});

test('startingModels and startingForDemand: only starting replicas, only of models someone waits for', () => {
  assert.equal([...startingModels(placements)], ['qwen']);
  const routers = [rt('rt-a', usage({ waiting: { qwen: { count: 1, oldest: T } } }))];
  assert.equal(startingForDemand(placements, routers), [{ replica: 'qwen-0', model: 'qwen', node: 'n1', port: 8001 }]);
  assert.equal(startingForDemand(placements, [rt('rt-a', usage({ waiting: { phi: { count: 4, oldest: T } } }))]), []);
  assert.equal(startingForDemand(placements, [rt('rt-a', usage())]), []);
});

const cfg = config([nodeConfig('n1', { host: '10.0.0.1' }), nodeConfig('n2', { host: '10.0.0.2' })], {}, [
  model('qwen'),
  model('phi', { routing: 'least-inflight' }),
]);

test("tablesWith: each router's own table plus the running replica at cluster.yaml's host and the port of record; unknown tables and tables that list it already are left alone", () => {
  const phi = [{ replica: 'phi-0', url: 'http://10.0.0.2:8000' }];
  const routers = [
    rt('rt-a', usage({ table: { qwen: [], phi } })),
    rt('rt-b', usage({ table: { phi: [] } })),
    rt('rt-c', usage()),
    rt('rt-d', usage({ table: { qwen: [{ replica: 'qwen-0', url: 'http://10.0.0.1:8001' }], phi } })),
  ];
  const t = tablesWith(cfg, routers, [{ replica: 'qwen-0', model: 'qwen', node: 'n1', port: 8001 }]);
  assert.equal([...t.keys()], ['rt-a', 'rt-b']);
  assert.equal(t.get('rt-a'), { version: 1, models: { qwen: [{ replica: 'qwen-0', url: 'http://10.0.0.1:8001' }], phi }, routing: { phi: 'least-inflight' } });
  assert.equal(t.get('rt-b')!.models, { qwen: [{ replica: 'qwen-0', url: 'http://10.0.0.1:8001' }], phi: [] });
});

/** A fleet answering over a fake transport: routers' usage, the agent's report, and a record of the tables pushed. */
function fleetTransport(state: { running: boolean; waiting: number }) {
  const pushed: { router: string; table: Record<string, unknown> }[] = [];
  const transport: Transport = {
    async run(target, command, input) {
      if (command === 'llmgw router usage') {
        const listed = pushed.some((p) => p.router === target.name);
        const qwen = listed ? [{ replica: 'qwen-0', url: 'http://10.0.0.1:8001' }] : [];
        return JSON.stringify(usage({ table: { qwen, phi: [] }, waiting: state.waiting > 0 ? { qwen: { count: state.waiting, oldest: T } } : {} }));
      }
      if (command === 'llmgw agent report') {
        const replicas = [{ id: 'qwen-0', model: 'qwen', gpus: [0], state: state.running ? 'running' : 'starting', rank: 0, port: 8001 }];
        return JSON.stringify({ version: 1, gpus: [], replicas, storage: [], warnings: [] });
      }
      if (command === 'llmgw router endpoints') {
        pushed.push({ router: target.name, table: JSON.parse(input) as Record<string, unknown> });
        return JSON.stringify({ ok: true });
      }
      throw new Error(`unexpected ${command}`);
    },
    async close() {},
  };
  return { transport, pushed };
}

test('the watch: waiting asks for one tick; the starting replica is routed under the lease once its agent says running, and only once', async () => {
  const withRouters = { ...cfg, cluster: { ...cfg.cluster, routers: [{ name: 'rt-a', host: '127.0.0.1', port: 22 }] } };
  const fleet = { running: false, waiting: 3 };
  const { transport, pushed } = fleetTransport(fleet);
  const triggers: string[] = [];
  let leasedRuns = 0;
  const repo = { hasRemote: false } as LeaseRefs;
  const step = demandWatch({
    loop: { busy: () => false, runs: () => 1, trigger: (r) => void triggers.push(r) },
    load: async () => ({ config: withRouters, placements }),
    transport: () => transport,
    repo,
    leased: async (job) => {
      leasedRuns += 1;
      await job({ holder: 'me', expiresAt: () => undefined, epoch: () => 1 });
      return true;
    },
    now: () => new Date(T),
    log: () => undefined,
  });
  await step();
  assert.equal(triggers, ['demand']);
  assert.is(pushed.length, 0, 'still starting: nothing routed');
  await step();
  assert.equal(triggers, ['demand'], 'the same waiting does not trigger again');
  fleet.running = true;
  await step();
  assert.is(leasedRuns, 1);
  assert.equal(
    pushed.map((p) => [p.router, p.table.models]),
    [['rt-a', { qwen: [{ replica: 'qwen-0', url: 'http://10.0.0.1:8001' }], phi: [] }]],
  );
  await step();
  assert.is(pushed.length, 1, 'listed now: not pushed again');
});

test('the watch routes nothing while a tick runs, and nothing for a standby', async () => {
  const withRouters = { ...cfg, cluster: { ...cfg.cluster, routers: [{ name: 'rt-a', host: '127.0.0.1', port: 22 }] } };
  const { transport, pushed } = fleetTransport({ running: true, waiting: 2 });
  let busy = true;
  let asked = 0;
  const step = demandWatch({
    loop: { busy: () => busy, runs: () => 1, trigger: () => undefined },
    load: async () => ({ config: withRouters, placements }),
    transport: () => transport,
    repo: { hasRemote: false } as LeaseRefs,
    leased: async () => {
      asked += 1;
      return false;
    },
    now: () => new Date(T),
    log: () => undefined,
  });
  await step();
  assert.is(asked, 0, 'busy: the tick routes it');
  busy = false;
  await step();
  assert.is(asked, 1);
  assert.is(pushed.length, 0, 'the lease was not ours: nothing pushed');
});

test('while a woken replica starts, one look asks its agent again wakeLooks times and routes it the moment it runs; a tick starting meanwhile stops the asking', async () => {
  const withRouters = { ...cfg, cluster: { ...cfg.cluster, routers: [{ name: 'rt-a', host: '127.0.0.1', port: 22 }] } };
  let busy = false;
  /** A watch over `fleet` that calls `onReport(n)` before the n-th agent report is answered. */
  const waking = (fleet: { running: boolean; waiting: number }, onReport: (n: number) => void) => {
    const { transport, pushed } = fleetTransport(fleet);
    let reports = 0;
    const step = demandWatch({
      loop: { busy: () => busy, runs: () => 1, trigger: () => undefined },
      load: async () => ({ config: withRouters, placements }),
      transport: () => ({
        ...transport,
        async run(target, command, input) {
          if (command === 'llmgw agent report') onReport(++reports);
          return transport.run(target, command, input);
        },
      }),
      repo: { hasRemote: false } as LeaseRefs,
      leased: async (job) => {
        await job({ holder: 'me', expiresAt: () => undefined, epoch: () => 1 });
        return true;
      },
      now: () => new Date(T),
      log: () => undefined,
      wakeLooks: 5,
      wakeMs: 1,
    });
    return { step, pushed, reports: () => reports };
  };
  const fleet = { running: false, waiting: 3 };
  const runs = waking(fleet, (n) => {
    if (n === 3) fleet.running = true;
  });
  await runs.step();
  assert.is(runs.reports(), 3, 'asked again until the third answer said running, and no more');
  assert.is(runs.pushed.length, 1, 'routed within the one look');

  const stops = waking({ running: false, waiting: 3 }, (n) => {
    if (n === 2) busy = true;
  });
  await stops.step();
  assert.is(stops.reports(), 2, 'a tick began: no more asking');
  assert.is(stops.pushed.length, 0);
});

test.run();
