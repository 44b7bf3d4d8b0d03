// The holder's side of fencing and of the lease's deadline (docs/safety.md#fencing,
// #clocks): every changing request carries the lease; a refusal stops the
// holder at once; past `expiry − safety` no new changing call starts, and the
// rest of the apply is left, deferred, for the next tick.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { executePlan } from '../../src/apply/executor.js';
import { applyGuard } from '../../src/apply/guard.js';
import type { Action, Plan } from '../../src/types/plan.js';
import type { AgentApplyReply, AgentApplyRequest, Lease, RouterEndpoints } from '../../src/types/snapshot.js';
import type { HostTarget, Transport } from '../../src/types/transport.js';
import { stopId } from '../../src/agent/request.js';
import { config, fleet, node, replica } from './fixtures.js';

const plan = (actions: Action[]): Plan => ({ version: 1, changes: actions.length > 0, blocked: null, actions, unplaceable: [] });
const start = (id: string, nodes: string[], port = 8000): Action => ({
  op: 'start',
  replica: id,
  model: 'llama',
  port,
  weights: 'none',
  reason: 'missing',
  placement: nodes.map((n) => ({ node: n, gpus: [0, 1] })),
});
const stop = (id: string, nodes: string[]): Action => ({
  op: 'stop',
  replica: id,
  model: 'gone',
  reason: 'r',
  waitFor: [],
  placement: nodes.map((n) => ({ node: n, gpus: [0, 1] })),
});

interface Seen {
  host: string;
  kind: 'apply' | 'table';
  lease: Lease | undefined;
  refused: boolean;
}

/** Nodes and routers that fence as the reference ones do: each remembers the highest epoch it took and refuses a lower one. */
function fencingFleet(highest: Record<string, number> = {}, onCall: (host: string) => void = () => undefined): Transport & { seen: Seen[] } {
  const seen: Seen[] = [];
  const mark = new Map(Object.entries(highest));
  return {
    seen,
    async run(target: HostTarget, command: string, input: string): Promise<string> {
      await new Promise((r) => setTimeout(r, 1));
      const body = JSON.parse(input) as AgentApplyRequest & RouterEndpoints;
      const epoch = body.lease?.epoch ?? 0;
      const before = mark.get(target.name) ?? 0;
      const refused = epoch < before;
      if (!refused) mark.set(target.name, epoch);
      const kind = command.endsWith(' endpoints') ? 'table' : 'apply';
      seen.push({ host: target.name, kind, lease: body.lease, refused });
      onCall(target.name);
      const error = `fenced: epoch ${epoch} < ${before}`;
      if (kind === 'table') return JSON.stringify(refused ? { version: 1, ok: false, error } : { version: 1, ok: true });
      const reply: AgentApplyReply = {
        version: 1,
        results: [
          ...body.start.map((s) => ({ replica: s.replica, op: 'start' as const, ...(refused ? { ok: false, error } : { ok: true }) })),
          ...body.stop.map((e) => ({ replica: stopId(e), op: 'stop' as const, ...(refused ? { ok: false, error } : { ok: true }) })),
        ],
      };
      return JSON.stringify(reply);
    },
    async close() {},
  };
}

const LEASE: Lease = { epoch: 4, holder: 'rc-a:1:00ff00ff' };
const T0 = new Date('2026-11-29T08:00:00Z');

test('every agent apply and router endpoints request carries the lease as {"epoch":N,"holder":"…"}', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [replica('old-0', 'gone', ['g1'], 'running')]);
  const t = fencingFleet();
  const guard = applyGuard({ lease: LEASE, expiresAt: () => new Date(T0.getTime() + 600_000), safetyMs: 60_000, now: () => T0 });
  const out = await executePlan(plan([stop('old-0', ['g1']), start('llama-0', ['g2'])]), { config: cfg, fleet: f, transport: t, guard });
  assert.equal(
    t.seen.map((s) => s.kind),
    ['table', 'table', 'apply', 'apply', 'table', 'table'],
  );
  for (const s of t.seen) assert.equal(s.lease, LEASE, `${s.kind} to ${s.host}`);
  assert.equal([out.started, out.stopped, out.deferred, out.failed], [1, 1, 0, 0]);
});

test('a fenced reply stops the holder at once: no further changing call, the rest deferred, the guard says fenced', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, [replica('old-0', 'gone', ['g1'], 'running')]);
  // g1 has seen epoch 7 from a newer holder: the stop there is refused.
  const t = fencingFleet({ 'rt-1': 7, 'rt-2': 7 });
  const guard = applyGuard({ lease: LEASE, safetyMs: 0, now: () => T0 });
  const out = await executePlan(plan([stop('old-0', ['g1']), start('llama-0', ['g2'])]), { config: cfg, fleet: f, transport: t, guard });
  // The first table push (both routers at once) is refused; nothing is sent after it.
  assert.equal(
    t.seen.map((s) => `${s.kind}@${s.host}:${s.refused}`),
    ['table@rt-1:true', 'table@rt-2:true'],
  );
  assert.is(guard.fencedBy(), 'fenced: epoch 4 < 7');
  assert.is(out.started, 0);
  assert.is(out.stopped, 0);
  assert.ok(out.results.every((r) => r.status !== 'ok'));
  assert.match(out.results.find((r) => r.op === 'start')?.reason ?? '', /^not sent: fenced by a node \(fenced: epoch 4 < 7\)/);
});

test('an agent refusing the epoch stops the apply before the next stage: no table, no later stop', async () => {
  const cfg = config([node('g1'), node('g2')]);
  const f = fleet(cfg, []);
  const t = fencingFleet({ g1: 9 });
  const guard = applyGuard({ lease: LEASE, safetyMs: 0, now: () => T0 });
  const out = await executePlan(plan([start('llama-0', ['g1']), start('llama-1', ['g2'], 8001)]), { config: cfg, fleet: f, transport: t, guard });
  assert.is(guard.fencedBy(), 'fenced: epoch 4 < 9');
  // Both nodes were in one round (sent together): g1 refused, g2 took its start; no router table after it.
  assert.equal(t.seen.map((s) => `${s.kind}@${s.host}:${s.refused}`).sort(), ['apply@g1:true', 'apply@g2:false']);
  assert.is(out.results.find((r) => r.replica === 'llama-0')?.status, 'failed');
});

test('past expiry − safety no new changing call starts: the apply is cut between rounds and the rest left for the next tick', async () => {
  const cfg = config([node('g1'), node('g2'), node('g3')], []);
  cfg.cluster.ssh.concurrency = 1;
  const f = fleet(cfg, []);
  let clock = T0.getTime();
  // Each call takes the clock past the deadline: expiry T0+10m, safety 9m59s, so only the first round goes.
  const t = fencingFleet({}, () => (clock += 2_000));
  const guard = applyGuard({ lease: LEASE, expiresAt: () => new Date(T0.getTime() + 600_000), safetyMs: 599_000, now: () => new Date(clock) });
  const out = await executePlan(plan([start('llama-0', ['g1']), start('llama-1', ['g2'], 8001), start('llama-2', ['g3'], 8002)]), {
    config: cfg,
    fleet: f,
    transport: t,
    guard,
  });
  assert.equal(
    t.seen.map((s) => s.host),
    ['g1'],
  );
  assert.is(out.started, 1);
  assert.is(out.deferred, 2);
  assert.is(guard.fencedBy(), null);
  for (const id of ['llama-1', 'llama-2']) assert.match(out.results.find((r) => r.replica === id)?.reason ?? '', /^not sent: the lease's deadline passed/);
});

test('a lease whose deadline passed before the apply sends nothing at all', async () => {
  const cfg = config([node('g1')]);
  const f = fleet(cfg, [replica('old-0', 'gone', ['g1'], 'running')]);
  const t = fencingFleet();
  const guard = applyGuard({ lease: LEASE, expiresAt: () => new Date(T0.getTime() + 30_000), safetyMs: 60_000, now: () => T0 });
  const out = await executePlan(plan([stop('old-0', ['g1']), start('llama-0', ['g1'], 8001)]), { config: cfg, fleet: f, transport: t, guard });
  assert.equal(t.seen, []);
  assert.equal([out.started, out.stopped, out.deferred], [0, 0, 2]);
});

test.run();
