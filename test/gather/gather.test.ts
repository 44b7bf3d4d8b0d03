import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SshError } from '../../src/errors.js';
import { gatherSnapshot, unreachableObservation } from '../../src/gather/gather.js';
import { formatProgress } from '../../src/gather/progress.js';
import { emptyState } from '../../src/types/state.js';
import type { Config } from '../../src/types/config.js';
import type { AgentReport, NodeObservation, Snapshot } from '../../src/types/snapshot.js';
import { previousRun } from '../../src/store/read.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transport } from '../../src/types/transport.js';
import { NOW, testCluster } from '../fixtures/index.js';

const report = (tag: string): AgentReport => ({ version: 1, gpus: [], replicas: [], storage: [], warnings: [tag] });

function config(names: string[]): Config {
  return {
    cluster: testCluster({
      name: 'c',
      ssh: { user: 'u', knownHosts: '/dev/null', port: 22, connectTimeoutMs: 1, commandTimeoutMs: 1, concurrency: 1 },
      agent: { command: 'env A=1 llmgw agent' },
      fabrics: [],
      nodes: names.map((name) => ({ name, host: `${name}.example`, port: 22, fabric: 'f', cordon: false, storage: [] })),
      idleAfterMs: 1,
      lostAfterMs: 1,
    }),
    models: [],
  };
}

/** A fake transport: each host's answer from a table. */
function fake(answers: Record<string, () => string>, seen: string[] = []): Transport {
  return {
    async run(target, command) {
      seen.push(`${target.host} ${command}`);
      return answers[target.name]!();
    },
    async close() {},
  };
}

test('a newly unreachable node is unreachable since now and keeps the report it gave last time', () => {
  const prev = { name: 'a', reachable: true as const, report: report('old') };
  assert.equal(unreachableObservation('a', 'e', prev, emptyState(), NOW), {
    name: 'a',
    reachable: false,
    error: 'e',
    unreachableSince: NOW,
    lastReport: report('old'),
  });
});

test('a node still unreachable keeps its first unreachable time and its last report', () => {
  const prev = { name: 'a', reachable: false as const, error: 'x', unreachableSince: '2026-11-29T07:00:00Z', lastReport: report('older') };
  const obs = unreachableObservation('a', 'e', prev, emptyState(), NOW);
  assert.equal(obs, { name: 'a', reachable: false, error: 'e', unreachableSince: '2026-11-29T07:00:00Z', lastReport: report('older') });
});

test('without a previous snapshot, state.json says since when; without either it is now', () => {
  const state = { ...emptyState(), unreachableSince: { a: '2026-11-28T00:00:00Z' } };
  assert.is((unreachableObservation('a', 'e', undefined, state, NOW) as { unreachableSince: string }).unreachableSince, '2026-11-28T00:00:00Z');
  assert.is((unreachableObservation('b', 'e', undefined, state, NOW) as { unreachableSince: string }).unreachableSince, NOW);
});

test('an unknown start stays unknown: a lost node does not turn freshly unreachable', () => {
  const prev = { name: 'a', reachable: false as const, error: 'x', unreachableSince: null, lastReport: null };
  assert.is((unreachableObservation('a', 'e', prev, emptyState(), NOW) as { unreachableSince: null }).unreachableSince, null);
});

test('a previous entry without lastReport (hand-edited) still gives lastReport null, never a missing field', () => {
  const prev = { name: 'a', reachable: false, error: 'x', unreachableSince: '2026-11-29T07:00:00Z' } as unknown as NodeObservation;
  assert.is((unreachableObservation('a', 'e', prev, emptyState(), NOW) as { lastReport: unknown }).lastReport, null);
});

test('a previous snapshot that breaks the schema is a warning and carries nothing over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-prev-'));
  try {
    mkdirSync(join(dir, '.llmgw'));
    const bad = { version: 1, observedAt: NOW, nodes: [{ name: 'a', reachable: true, report: { version: 1, gpus: 'many' } }], routers: [] };
    writeFileSync(join(dir, '.llmgw/observed.json'), JSON.stringify(bad));
    const warnings: string[] = [];
    const { previous } = await previousRun(dir, (m) => warnings.push(m));
    assert.is(previous, null);
    assert.is(warnings.length, 1);
    assert.ok(warnings[0]!.startsWith(`${join(dir, '.llmgw/observed.json')}: not a valid snapshot (/nodes/0/report: `), warnings[0]);
    assert.ok(warnings[0]!.endsWith('; what it said of unreachable nodes comes from .llmgw/state.json instead'), warnings[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nodes come out sorted by name, each asked with `<agent.command> report` and nothing else on the line', async () => {
  const seen: string[] = [];
  const t = fake({ b: () => JSON.stringify(report('b')), a: () => JSON.stringify(report('a')) }, seen);
  const snap = await gatherSnapshot(config(['b', 'a']), { transport: t, previous: null, state: emptyState(), now: () => new Date(NOW) });
  assert.equal(
    snap.nodes.map((n) => n.name),
    ['a', 'b'],
  );
  assert.equal(seen.sort(), ['a.example env A=1 llmgw agent report', 'b.example env A=1 llmgw agent report']);
  assert.equal(snap.routers, []);
});

test('a banner a login shell prints before the reply does not spoil it; text with no JSON line is a bad reply', async () => {
  const t = fake({
    a: () => `Welcome to gpu-a\nLast login: today\n${JSON.stringify(report('a'))}\n`,
    b: () => 'Welcome to gpu-b\nno reply here\n',
  });
  const snap = await gatherSnapshot(config(['a', 'b']), { transport: t, previous: null, state: emptyState(), now: () => new Date(NOW) });
  assert.equal(snap.nodes[0], { name: 'a', reachable: true, report: report('a') });
  assert.equal(
    (snap.nodes[1] as { error: string }).error,
    'b (b.example:22): `env A=1 llmgw agent report` gave a reply that is not JSON: "Welcome to gpu-b no reply here"',
  );
});

test('a replica reported without startedAt (an agent that cannot tell) is accepted as is, not a bad reply', async () => {
  const replica = { id: 'm-0', model: 'm', gpus: [0], state: 'running' as const };
  const withReplica: AgentReport = { ...report('a'), replicas: [replica] };
  const snap = await gatherSnapshot(config(['a']), {
    transport: fake({ a: () => JSON.stringify(withReplica) }),
    previous: null,
    state: emptyState(),
    now: () => new Date(NOW),
  });
  assert.equal(snap.nodes[0], { name: 'a', reachable: true, report: withReplica });
});

test('a transport that throws something other than SshError makes an error line, never a throw', async () => {
  const t = fake({
    a: () => {
      throw new TypeError('boom');
    },
    b: () => {
      throw new SshError('refused', 'b', 'b (b.example:22): connection refused');
    },
    c: () => '{"version":2}',
  });
  const previous: Snapshot = { version: 1, observedAt: NOW, nodes: [{ name: 'b', reachable: true, report: report('b') }], routers: [] };
  const snap = await gatherSnapshot(config(['a', 'b', 'c']), { transport: t, previous, state: emptyState(), now: () => new Date(NOW) });
  assert.equal(
    snap.nodes.map((n) => [n.name, n.reachable, !n.reachable && n.error]),
    [
      ['a', false, 'a (a.example:22): boom'],
      ['b', false, 'b (b.example:22): connection refused'],
      [
        'c',
        false,
        "c (c.example:22): `env A=1 llmgw agent report` gave a reply that is not a valid agent-report: /: must have required property 'gpus'; and 4 more",
      ],
    ],
  );
  assert.equal((snap.nodes[1] as { lastReport: AgentReport }).lastReport, report('b'));
});

test('the progress line reads done/total nodes · unreachable', () => {
  assert.is(formatProgress({ done: 412, total: 1000, unreachable: 3 }), '412/1000 nodes · 3 unreachable');
});

test.run();
