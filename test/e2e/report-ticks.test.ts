// `llmgw report` over commits that real ticks made (src/tick/run.ts, agents
// answered in-process): the commits ConfigRepo writes are llmgw's by the one
// rule, and the last one counts forward at the fleet it committed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';
import { captureIo } from '../helpers/io.js';

const CLUSTER = tickClusterYaml({ nodes: 6, webhook: 'http://127.0.0.1:9/hook', extra: ['lostAfter: 10m'] });
const MODELS = modelsYaml([
  { name: 'a', gpus: 4, replicas: 2 },
  { name: 'b', gpus: 8, replicas: 1 },
]);

test('after real ticks: one hour past the last tick counts its fleet, 48 GPUs, 16 of them held by a and b', async () => {
  const world = await tickWorld({ cluster: CLUSTER, models: MODELS, nodes: tickNodes(6), prefix: 'report-ticks' });
  const { dir } = world;
  for (const min of [0, 1, 2]) await world.tick(min, { notify: false });
  // The last tick's commit, by author time (what report reads): the clock's, whatever the tick's injected now.
  const [last] = (await git(dir, ['log', '-1', '--format=%aI', '--author=llmgw@localhost'])).trim().split('\n');
  assert.ok(last, 'a tick committed');
  const since = new Date(Date.parse(last)).toISOString();
  const until = new Date(Date.parse(last) + 3_600_000).toISOString();
  const c = captureIo({ cwd: dir, env: { PATH: process.env.PATH } });
  assert.is(await main(['report', '--repo', dir, '--since', since, '--until', until, '--format', 'json'], c.io), 0, c.err());
  const j = JSON.parse(c.out()) as { models: { model: string; serving: number; idle: number; transit: number }[]; fleet: Record<string, number> };
  const held = (m: string) => {
    const row = j.models.find((x) => x.model === m)!;
    return row.serving + row.idle + row.transit;
  };
  assert.equal(
    j.models.map((m) => m.model),
    ['a', 'b'],
  );
  assert.is(held('a'), 8);
  assert.is(held('b'), 8);
  // No routers: idleness is unknown, never idle.
  assert.is(j.fleet.idle, 0);
  assert.is(j.fleet.free, 32);
  assert.is(j.fleet.unobserved, 0);
  assert.is(
    Object.values(j.fleet).reduce((s, x) => s + x, 0),
    48,
  );
  await world.close();
});

test.run();
