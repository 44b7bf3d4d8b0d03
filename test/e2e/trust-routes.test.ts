// Issue #11, attack 4, end to end against the real router (docs/security.md):
// routers get `http://{host}:{port}` built from cluster.yaml, never the
// endpoint a report claims. A compromised node reporting
// `http://attacker.invalid/steal`, or a PR forging a carried-over report in
// .llmgw/observed.json, never gets that URL into the router's table; the
// first is a warning in status. A replica on a node that went unreachable
// keeps the route the router already had.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as status } from '../../src/cli/commands/status.js';
import { git, pullRemote } from '../../src/demo/git-remote.js';
import { runRouterClient } from '../../src/router/client.js';
import type { RouterUsage, Snapshot } from '../../src/types/snapshot.js';
import { captureIo } from '../helpers/io.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

const ATTACKER = 'http://attacker.invalid/steal';
let e: E2E;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

async function routerTable(): Promise<NonNullable<RouterUsage['table']>> {
  const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: join(e.world.dir, 'router.sock') });
  assert.is(out.code, 0, out.stderr);
  return (JSON.parse(out.stdout) as RouterUsage).table!;
}

function recordFile(node: string, id: string): string {
  return join(e.world.agentEnv(node).LLMGW_STATE_DIR!, 'replicas', `${id}.json`);
}

let node = '';
let url = '';

test('a running replica is routed at http://{host}:{port} of its node in cluster.yaml', async () => {
  await e.tick();
  await e.waitRunning(1);
  await e.tick();
  const [small] = await e.replicasOnFleet();
  node = small!.node;
  const port = (JSON.parse(await readFile(recordFile(node, 'small-0'), 'utf8')) as { port: number }).port;
  url = `http://${e.world.hostOf.get(node)}:${port}`;
  assert.equal(await routerTable(), { small: [{ replica: 'small-0', url }] });
});

test('a compromised node reporting http://attacker.invalid/steal: the router keeps the cluster.yaml URL, and status warns', async () => {
  const file = recordFile(node, 'small-0');
  const record = JSON.parse(await readFile(file, 'utf8')) as { endpoint: string };
  await writeFile(file, JSON.stringify({ ...record, endpoint: ATTACKER }));
  const r = await e.tick();
  assert.is(r.outcome?.failed, 0);
  assert.equal(await routerTable(), { small: [{ replica: 'small-0', url }] });
  assert.not.ok(JSON.stringify(await routerTable()).includes('attacker'));
  assert.equal(r.report?.endpointWarnings, [{ replica: 'small-0', node, reported: ATTACKER, routed: url }]);
  assert.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /1 replica reported by its node at an endpoint other than cluster\.yaml's host and port/);
  const c = captureIo({ cwd: e.workdir, env: { HOME: process.env.HOME } });
  const observed = await readFile(join(e.workdir, '.llmgw/observed.json'), 'utf8');
  const at = (JSON.parse(observed) as Snapshot).observedAt;
  assert.is(await status(['--json', '--observed', '.llmgw/observed.json', '--now', at], c.io), 0);
  assert.equal(JSON.parse(c.out()).endpointWarnings, [{ replica: 'small-0', node, reported: ATTACKER, routed: url }]);
  await writeFile(file, JSON.stringify(record));
  assert.equal((await e.tick()).report?.endpointWarnings, []);
});

test('a node gone unreachable keeps the route the router already has; a PR forging a carried-over report for it adds none', async () => {
  // The PR: the committed snapshot now says the node also runs small-7 at the attacker's URL.
  await pullRemote(e.people);
  const snap = JSON.parse(await readFile(join(e.people, '.llmgw/observed.json'), 'utf8')) as Snapshot;
  const entry = snap.nodes.find((n) => n.name === node)!;
  assert.ok(entry.reachable);
  entry.report.replicas.push({
    id: 'small-7',
    model: 'small',
    gpus: [7],
    state: 'running',
    endpoint: ATTACKER,
    port: 8555,
    rank: 0,
    startedAt: snap.observedAt,
  });
  await writeFile(join(e.people, '.llmgw/observed.json'), JSON.stringify(snap, null, 2) + '\n');
  await git(e.people, ['commit', '--quiet', '-am', 'A forged carried-over report']);
  await git(e.people, ['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);

  const refusing = e.world.sim.setFaultAsync(node, 'refuse');
  e.world.sim.dropConnections(node);
  await refusing;
  try {
    const r = await e.tick();
    const carried = r.report!.replicas.map((x) => x.id);
    // small-7 has no placement of record (docs/safety.md#records-over-reports): unrecorded, listed, never a replica of the fleet.
    assert.equal(carried, ['small-0'], 'the recorded one is carried over');
    assert.equal(
      r.report!.unrecorded!.map((u) => [u.replica, u.node]),
      [['small-7', node]],
    );
    // small-0 was in the router's table and stays; small-7 never was and is not added.
    assert.equal(await routerTable(), { small: [{ replica: 'small-0', url }] });
  } finally {
    await e.world.sim.setFaultAsync(node, null);
  }
  await e.tick();
  assert.not.ok(JSON.stringify(await routerTable()).includes('attacker'));
});

test.run();
