import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli/commands/gather.js';
import { captureIo, type CapturedIo } from '../helpers/io.js';
import { startSimFleet, type SimFleet, type SimHostSpec } from '../../src/sim/fleet.js';
import type { Snapshot, UnreachableReason } from '../../src/types/snapshot.js';
import { gatherSummary, noNodeAnswered } from '../../src/gather/summary.js';
import { generateSimKey } from '../../src/sim/keys.js';
import { cannedHandler, cannedReport, SIM_MODELS_YAML, simClusterYaml, tempDir } from './sim-helpers.js';

/** The shared in-process Io, its stderr a terminal or not. */
function capture(cwd: string, tty = false): CapturedIo {
  const c = captureIo({ cwd });
  Object.assign(c.io.stderr, { isTTY: tty });
  return c;
}

/** A sim fleet and a repo (`repo/` under a temp dir, the cwd) for it; both gone after `fn`. */
async function withSimRepo(prefix: string, hosts: SimHostSpec[], fn: (ctx: { cwd: string; repo: string; fleet: SimFleet }) => Promise<void>): Promise<void> {
  const tmp = tempDir(prefix);
  const fleet = await startSimFleet({ dir: join(tmp.dir, 'keys'), handler: cannedHandler, hosts });
  const repo = join(tmp.dir, 'repo');
  mkdirSync(join(repo, '.llmgw'), { recursive: true });
  writeFileSync(join(repo, 'cluster.yaml'), simClusterYaml(fleet));
  writeFileSync(join(repo, 'models.yaml'), SIM_MODELS_YAML);
  try {
    await fn({ cwd: tmp.dir, repo, fleet });
  } finally {
    await fleet.close();
    tmp.remove();
  }
}

test('llmgw gather prints the snapshot, carries unreachableSince and lastReport over, and exits 0 with a host down', async () => {
  const tmp = tempDir('gathercmd');
  const fleet = await startSimFleet({ dir: join(tmp.dir, 'keys'), handler: cannedHandler, hosts: [{ name: 'n1' }, { name: 'n2', fault: 'refuse' }] });
  const repo = join(tmp.dir, 'repo');
  mkdirSync(join(repo, '.llmgw'), { recursive: true });
  writeFileSync(join(repo, 'cluster.yaml'), simClusterYaml(fleet));
  writeFileSync(join(repo, 'models.yaml'), SIM_MODELS_YAML);
  const previous: Snapshot = {
    version: 1,
    observedAt: '2026-11-29T07:00:00Z',
    nodes: [{ name: 'n2', reachable: false, error: 'old', unreachableSince: '2026-11-29T06:00:00Z', lastReport: cannedReport('n2') }],
    routers: [],
  };
  writeFileSync(join(repo, '.llmgw/observed.json'), JSON.stringify(previous));
  try {
    const c = capture(tmp.dir, true);
    assert.is(await run(['--repo', 'repo'], c.io), 0);
    const snap = JSON.parse(c.out()) as Snapshot;
    assert.ok(c.out().startsWith('{\n  "version": 1,\n  "observedAt": "'));
    assert.equal(snap.nodes[0], { name: 'n1', reachable: true, report: cannedReport('n1') });
    assert.equal(
      { ...snap.nodes[1], error: '' },
      { name: 'n2', reachable: false, error: '', reason: 'refused', unreachableSince: '2026-11-29T06:00:00Z', lastReport: cannedReport('n2') },
    );
    assert.match((snap.nodes[1] as { error: string }).error, /^n2 \(127\.0\.0\.3:\d+\): connection refused$/);
    assert.match(c.err(), /2\/2 nodes · 1 unreachable/, 'progress on a terminal');
    assert.ok(c.err().endsWith('llmgw gather: 1 of 2 nodes answered; unreachable: 1 refused (n2: connection refused)\n'), c.err());

    const f = capture(tmp.dir, false);
    assert.is(await run(['--repo', 'repo', '--out', 'snap.json'], f.io), 0);
    assert.is(f.out(), '');
    assert.is(
      f.err(),
      'llmgw gather: 1 of 2 nodes answered; unreachable: 1 refused (n2: connection refused)\n',
      'no progress when stderr is not a terminal, only the summary',
    );
    assert.is((JSON.parse(readFileSync(join(tmp.dir, 'snap.json'), 'utf8')) as Snapshot).nodes.length, 2);
  } finally {
    await fleet.close();
    tmp.remove();
  }
});

test('two gathers through .llmgw/observed.json: a node that goes down is unreachable since the gather that first missed it, with its last report', async () => {
  await withSimRepo('gathertwice', [{ name: 'n1' }, { name: 'n2' }], async ({ cwd, repo, fleet }) => {
    const gather = async (): Promise<Snapshot> => {
      assert.is(await run(['--repo', 'repo', '--out', 'repo/.llmgw/observed.json'], capture(cwd).io), 0);
      return JSON.parse(readFileSync(join(repo, '.llmgw/observed.json'), 'utf8')) as Snapshot;
    };
    const first = await gather();
    assert.equal(first.nodes[1], { name: 'n2', reachable: true, report: cannedReport('n2') });
    await fleet.setFaultAsync('n2', 'refuse');
    const second = await gather();
    const down = second.nodes[1] as { unreachableSince: string | null; lastReport: unknown };
    assert.is(down.unreachableSince, second.observedAt);
    assert.equal(down.lastReport, cannedReport('n2'));
    await new Promise((r) => setTimeout(r, 1100)); // a later observedAt
    const third = await gather();
    assert.is.not(third.observedAt, second.observedAt);
    assert.equal(
      { ...third.nodes[1], error: '' },
      { name: 'n2', reachable: false, error: '', reason: 'refused', unreachableSince: second.observedAt, lastReport: cannedReport('n2') },
    );
  });
});

test('an unset ${VAR} in notify does not stop gather (it sends nothing), one in ssh does', async () => {
  await withSimRepo('gatherenv', [{ name: 'n1' }], async ({ cwd, repo, fleet }) => {
    const hooks = 'notify:\n  webhooks:\n    - { url: "${HOOK_URL}", secret: "${HOOK_SECRET}" }\n';
    writeFileSync(join(repo, 'cluster.yaml'), simClusterYaml(fleet) + hooks);
    const ok = capture(cwd);
    assert.is(await run(['--repo', 'repo'], ok.io), 0);
    assert.is(ok.err(), 'llmgw gather: 1 of 1 node answered\n');
    assert.is((JSON.parse(ok.out()) as Snapshot).nodes[0]?.reachable, true);

    writeFileSync(join(repo, 'cluster.yaml'), simClusterYaml(fleet).replace(/identityFile: .*/, 'identityFile: ${LLMGW_TEST_KEY}'));
    const bad = capture(cwd);
    assert.is(await run(['--repo', 'repo'], bad.io), 1);
    assert.match(bad.err(), /^repo\/cluster\.yaml:6:17: ssh\.identityFile: environment variable LLMGW_TEST_KEY is not set$/m);
    assert.is(bad.out(), '');
  });
});

test('a fleet where no node answers (8 of 8 refuse our key) still prints the snapshot, sums up by reason with the user and key tried, and exits 1', async () => {
  const hosts = Array.from({ length: 8 }, (_, i) => ({ name: `gpu-a0${i + 1}` }));
  await withSimRepo('gathernokey', hosts, async ({ cwd, repo, fleet }) => {
    const stranger = generateSimKey('not-the-fleet-key');
    const keyFile = join(cwd, 'stranger_ed25519');
    writeFileSync(keyFile, stranger.private, { mode: 0o600 });
    writeFileSync(join(repo, 'cluster.yaml'), simClusterYaml(fleet).replace(/identityFile: .*/, `identityFile: ${keyFile}`));
    const c = capture(cwd);
    assert.is(await run(['--repo', 'repo'], c.io), 1);
    const snap = JSON.parse(c.out()) as Snapshot;
    assert.equal(
      snap.nodes.map((n) => [n.name, n.reachable, n.reachable ? null : n.reason]),
      hosts.map((h) => [h.name, false, 'auth']),
    );
    // The line names who it tried to be and with which key (path and fingerprint), not only "auth".
    const fp = /^\S+ (SHA256:\S+)/.exec(execFileSync('ssh-keygen', ['-lf', keyFile], { encoding: 'utf8' }))?.[1];
    assert.ok(fp);
    assert.is(
      c.err(),
      `llmgw gather: 0 of 8 nodes answered; unreachable: 8 auth (gpu-a[01-08]: authentication failed as user ${fleet.user} with identityFile ${keyFile} (ssh-ed25519 ${fp}) (All configured authentication methods failed))\n`,
    );
  });
});

test('the summary counts each reason class apart, names its hosts as a hostlist, and the cause they share (none when they differ)', () => {
  const down = (name: string, reason?: UnreachableReason, error = `${name} (10.0.0.9:22): x`) => ({
    name,
    reachable: false as const,
    error,
    ...(reason ? { reason } : {}),
    unreachableSince: null,
    lastReport: null,
  });
  const up = (name: string) => ({ name, reachable: true as const, report: cannedReport(name) });
  const snap: Snapshot = {
    version: 1,
    observedAt: '2026-11-29T08:00:00Z',
    nodes: [
      up('n01'),
      down('n02', 'timeout', 'n02 (10.0.0.2:22): no TCP connection within 10s (connectTimeout)'),
      down('n03', 'timeout', 'n03 (10.0.0.3:22): no SSH handshake within 10s (connectTimeout)'),
      down('n04', 'host-key-changed'),
      down('n05'),
      up('n06'),
    ],
    routers: [{ name: 'rt-1', reachable: false, error: 'rt-1: connection refused', reason: 'refused' }],
  };
  assert.is(
    gatherSummary(snap),
    'llmgw gather: 2 of 6 nodes answered; unreachable: 2 timeout (n[02-03]), 1 host key changed (n04: x), 1 unknown (n05: x); 0 of 1 router answered; unreachable: 1 refused (rt-1: connection refused)',
  );
  assert.is(noNodeAnswered(snap), false);
  assert.is(noNodeAnswered({ ...snap, nodes: [] }), false, 'a fleet of no nodes is not a failed gather');
});

test('an --out that cannot be written is one line naming the file and exit 1', async () => {
  await withSimRepo('gatherout', [{ name: 'n1' }], async ({ cwd }) => {
    writeFileSync(join(cwd, 'afile'), '');
    const c = capture(cwd);
    assert.is(await run(['--repo', 'repo', '--out', 'afile/snap.json'], c.io), 1);
    assert.match(c.err(), /^llmgw gather: cannot write afile\/snap\.json \(E[A-Z]+\)\n$/);
    assert.is(c.out(), '');
  });
});

test('llmgw gather with an invalid config prints its problems and exits 1 without connecting', async () => {
  const tmp = tempDir('gatherbad');
  writeFileSync(join(tmp.dir, 'cluster.yaml'), 'apiVersion: llmgw/v1\nkind: Cluster\nname: x\nnodes: 3\n');
  writeFileSync(join(tmp.dir, 'models.yaml'), SIM_MODELS_YAML);
  try {
    const c = capture(tmp.dir);
    assert.is(await run([], c.io), 1);
    assert.match(c.err(), /^cluster\.yaml:\d+:\d+: /m);
    assert.is(c.out(), '');
  } finally {
    tmp.remove();
  }
});

test.run();
