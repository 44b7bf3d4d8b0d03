// Hostile agent reports and router replies (docs/security.md): seeded variants
// of a real report and a real usage reply, sent by one node and one router of
// the demo fleet through the gather that every tick runs. Each is that host's
// error in one line, or a report the tick goes on with; the snapshot stays
// valid (the next tick must read it back), nothing rendered or committed
// carries a raw control character, and no router table gets a URL that is not
// `http://{host}:{port}` of a node in cluster.yaml, whatever the reply said.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentTables, endpointTable } from '../../src/apply/router-tables.js';
import { parseConfig } from '../../src/config/load-config.js';
import { SshError } from '../../src/errors.js';
import { buildFleet } from '../../src/fleet/index.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import type { Config } from '../../src/types/config.js';
import type { NodeObservation, Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import type { Transport } from '../../src/types/transport.js';
import { stableJson } from '../../src/util/fs.js';
import { getValidator } from '../../src/util/schema.js';
import { leaksIn, leaksInAll } from '../helpers/leak-check.js';
import { COUNT, eachVariant, mutateJson, mutateText, rssGrowthMiB, type Rng } from './generate.js';
import { renderAll } from './render-all.js';

const demo = (f: string) => readFileSync(fileURLToPath(new URL(`../../../examples/demo/${f}`, import.meta.url)), 'utf8');
const SNAPSHOT = JSON.parse(demo('.llmgw/observed.json')) as Snapshot;
const loaded = parseConfig(
  { cluster: { name: 'cluster.yaml', text: demo('cluster.yaml') }, models: { name: 'models.yaml', text: demo('models.yaml') } },
  { env: {} },
);
if (!loaded.ok) throw new Error('the demo config is invalid');
const CONFIG: Config = loaded.config;
const HOSTILE_NODE = 'gpu-a01';
const REPORT = (SNAPSHOT.nodes.find((n) => n.name === HOSTILE_NODE) as Extract<NodeObservation, { reachable: true }>).report;
const USAGE = {
  ...(SNAPSHOT.routers[0] as { report: object }).report,
  table: { 'llama-3.1-70b': [{ replica: 'llama-3.1-70b-0', url: 'http://gpu-a01.ib-a.example:8000' }] },
};
const MEMORY_BOUND_MIB = 512;
const HOSTS = new Set(CONFIG.cluster.nodes.map((n) => n.host));

/** A hostile reply: a mutated document, damaged text, or something that is not a reply at all. */
function reply(base: unknown, r: Rng): string {
  const roll = r.int(10);
  if (roll === 0)
    return r.pick(['', 'null', '[]', '"x"', 'Welcome to gpu-node!\n', '{"version":1}', '\x1b[2J\n', `banner\n${JSON.stringify(base)}`, '{'.repeat(10_000)]);
  if (roll < 4) return mutateText(JSON.stringify(base), r);
  return JSON.stringify(mutateJson(base, r));
}

/** The demo fleet answering as observed, but `host` answering `stdout`. */
function transport(host: string, stdout: string): Transport {
  return {
    async run(target, command) {
      if (target.name === host) return stdout;
      if (command.endsWith(' usage')) return JSON.stringify(USAGE);
      const n = SNAPSHOT.nodes.find((x) => x.name === target.name);
      if (!n || !n.reachable) throw new SshError('unreachable', target.name, `${target.name}: connection refused`);
      return JSON.stringify(n.report);
    },
    async close() {},
  };
}

async function checkGathered(host: string, stdout: string): Promise<'accepted' | 'refused'> {
  const snapshot = await gatherSnapshot(CONFIG, {
    transport: transport(host, stdout),
    previous: SNAPSHOT,
    state: emptyState(),
    now: () => new Date('2026-11-29T08:00:00Z'),
  });
  const obs = [...snapshot.nodes, ...snapshot.routers].find((x) => x.name === host)!;
  if (!obs.reachable) {
    assert.not.ok(obs.error.includes('\n'), `one line: ${obs.error}`);
    assert.ok(obs.error.startsWith(`${host} (`), `names the host: ${obs.error}`);
    assert.not.match(obs.error, /internal error/);
  }
  const valid = getValidator('snapshot')(snapshot);
  assert.ok(valid.ok, `the snapshot stays valid: ${JSON.stringify(valid.ok ? null : valid.errors[0])}`);
  const leaks = [...leaksIn(stableJson(snapshot), 'observed.json'), ...leaksInAll(renderAll(CONFIG, snapshot, '2026-11-29T08:00:00Z'))];
  assert.equal(leaks, [], leaks.join('; '));
  // Whatever the router says it holds, what llmgw would give it points at cluster.yaml's hosts only.
  const fleet = buildFleet(CONFIG, snapshot, emptyState(), '2026-11-29T08:00:00Z');
  for (const [router, current] of currentTables(snapshot.routers)) {
    for (const list of Object.values(endpointTable(CONFIG, fleet, new Set(), current).models)) {
      for (const e of list) assert.ok(HOSTS.has(new URL(e.url).hostname), `router ${router} would get ${e.url}`);
    }
  }
  return obs.reachable ? 'accepted' : 'refused';
}

const kinds = [
  { kind: 'agent report', host: HOSTILE_NODE, base: REPORT },
  { kind: 'router usage', host: 'rt-1', base: USAGE },
];

for (const { kind, host, base } of kinds) {
  test(`${COUNT} hostile ${kind} replies: each is ${host}'s one-line error or a report the tick goes on with; the snapshot stays valid, nothing printed carries a control character, no table a foreign URL`, async () => {
    const rss = process.memoryUsage().rss;
    const seen = { accepted: 0, refused: 0 };
    await eachVariant(
      kind,
      COUNT,
      (r) => reply(base, r),
      async (stdout) => {
        seen[await checkGathered(host, stdout)]++;
      },
      (s) => s,
    );
    assert.ok(seen.accepted > COUNT / 20 && seen.refused > COUNT / 20, `both outcomes are reached: ${JSON.stringify(seen)}`);
    assert.ok(rssGrowthMiB(rss) < MEMORY_BOUND_MIB, `RSS grew ${rssGrowthMiB(rss).toFixed(0)} MiB`);
  });
}

test.run();
