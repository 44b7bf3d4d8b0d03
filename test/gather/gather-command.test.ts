import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli/commands/gather.js';
import { captureIo, type CapturedIo } from '../helpers/io.js';
import { startSimFleet } from '../../src/sim/fleet.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { cannedHandler, cannedReport, SIM_MODELS_YAML, simClusterYaml, tempDir } from './sim-helpers.js';

/** The shared in-process Io, its stderr a terminal or not. */
function capture(cwd: string, tty = false): CapturedIo {
  const c = captureIo({ cwd });
  Object.assign(c.io.stderr, { isTTY: tty });
  return c;
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
    assert.equal({ ...snap.nodes[1], error: '' }, { name: 'n2', reachable: false, error: '', unreachableSince: '2026-11-29T06:00:00Z', lastReport: cannedReport('n2') });
    assert.match((snap.nodes[1] as { error: string }).error, /^n2 \(127\.0\.0\.3:\d+\): connection refused$/);
    assert.match(c.err(), /2\/2 nodes · 1 unreachable/, 'progress on a terminal');

    const f = capture(tmp.dir, false);
    assert.is(await run(['--repo', 'repo', '--out', 'snap.json'], f.io), 0);
    assert.is(f.out(), '');
    assert.is(f.err(), '', 'silent when stderr is not a terminal');
    assert.is((JSON.parse(readFileSync(join(tmp.dir, 'snap.json'), 'utf8')) as Snapshot).nodes.length, 2);
  } finally {
    await fleet.close();
    tmp.remove();
  }
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
