// `llmgw report` on a real git repo (docs/commands.md#llmgw-report): llmgw's
// commits, and only those, make the ledger; a gap past 25 h is unobserved.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { emptyState } from '../../src/types/state.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml } from '../fixtures/tick-world.js';
import { captureIo } from '../helpers/io.js';
import { TICK_EMAIL, writeHistory, type ScriptedCommit } from '../ledger/history-repo.js';

const CLUSTER = tickClusterYaml({ nodes: 2 });
const MODELS = modelsYaml([{ name: 'm' }]);

const H = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00Z');
const at = (h: number) => new Date(T0 + h * H).toISOString();
const gpus = [0, 1].map((index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const rep = (replicas: object[]) => ({ version: 1, gpus, replicas, storage: [], warnings: [] });
const m0 = (state: string) => ({ id: 'm-0', model: 'm', gpus: [0], state, startedAt: at(0), port: 8000, rank: 0 });
const snap = (h: number, nodes: object[]) => JSON.stringify({ version: 1, observedAt: at(h), nodes, routers: [] });
const tick = (h: number, nodes: object[]): ScriptedCommit => ({
  time: at(h),
  email: TICK_EMAIL,
  message: 'llmgw: status',
  files: { 'STATUS.md': `# ${h}\n`, '.llmgw/observed.json': snap(h, nodes), '.llmgw/state.json': JSON.stringify(emptyState()) },
});

const root = mkdtempSync(join(tmpdir(), 'llmgw-report-'));
const repo = join(root, 'repo');
writeHistory(repo, [
  { time: at(-1), email: 'person@example.com', message: 'the fleet', files: { 'cluster.yaml': CLUSTER, 'models.yaml': MODELS } },
  tick(0, [
    { name: 'g1', reachable: true, report: rep([m0('starting')]) },
    { name: 'g2', reachable: true, report: rep([]) },
  ]),
  tick(1, [
    { name: 'g1', reachable: true, report: rep([m0('running')]) },
    { name: 'g2', reachable: true, report: rep([]) },
  ]),
  // llmgw's email, but a person's file too: not a tick, so its snapshot (every node silent) counts for nothing.
  {
    time: at(2),
    email: TICK_EMAIL,
    message: 'looks like a tick',
    files: { 'models.yaml': MODELS + '\n', '.llmgw/observed.json': snap(2, []) },
  },
  tick(3, [
    { name: 'g1', reachable: true, report: rep([m0('running')]) },
    { name: 'g2', reachable: false, error: 'connect ETIMEDOUT', reason: 'timeout', unreachableSince: at(3), lastReport: rep([]) },
  ]),
  // The reconciler was stopped for 37 h.
  tick(40, [
    { name: 'g1', reachable: true, report: rep([]) },
    { name: 'g2', reachable: true, report: rep([]) },
  ]),
]);

async function report(...args: string[]) {
  const c = captureIo({ cwd: root, env: { PATH: process.env.PATH, HOME: root } });
  const code = await main(['report', '--repo', repo, ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

const RANGE = ['--since', at(0), '--until', at(41)];

test('json: each interval at the earlier tick for at most 25 h, a person-touched commit ignored, the gap unobserved', async () => {
  const r = await report(...RANGE, '--format', 'json');
  assert.is(r.err, '');
  assert.is(r.code, 0);
  const j = JSON.parse(r.out) as { since: string; until: string; models: unknown[]; fleet: unknown };
  assert.equal([j.since, j.until], [at(0), at(41)]);
  // transit 1 h (starting), serving 2 h + 25 h; g2's 2 GPUs unreachable for 25 h; 4 GPUs unseen for 12 h.
  assert.equal(j.models, [{ model: 'm', serving: 27, idle: 0, transit: 1 }]);
  assert.equal(j.fleet, { serving: 27, idle: 0, transit: 1, free: 38, unhealthy: 0, other: 0, unreachable: 50, cordoned: 0, unobserved: 48 });
});

test('csv: long format, the fleet as model *', async () => {
  const r = await report(...RANGE, '--format', 'csv');
  assert.is(r.code, 0);
  assert.is(
    r.out,
    [
      'model,bucket,gpu_hours',
      'm,serving,27.00',
      'm,idle,0.00',
      'm,transit,1.00',
      '*,serving,27.00',
      '*,idle,0.00',
      '*,transit,1.00',
      '*,free,38.00',
      '*,unhealthy,0.00',
      '*,other,0.00',
      '*,unreachable,50.00',
      '*,cordoned,0.00',
      '*,unobserved,48.00',
      '',
    ].join('\n'),
  );
});

test('text: a table per model and the fleet, two decimals; --since as a duration back from --until', async () => {
  const r = await report('--since', '1h', '--until', at(2), '--now', at(50));
  assert.is(r.code, 0);
  assert.ok(r.out.startsWith(`GPU-hours from ${at(1)} to ${at(2)}\n`), r.out);
  assert.match(r.out, /^m\s+1\.00\s+0\.00\s+0\.00\s+1\.00$/m);
  assert.match(r.out, /^free\s+3\.00$/m);
  assert.match(r.out, /^total\s+4\.00$/m);
});

test('--until defaults to --now, and --since to 7 days before it', async () => {
  const r = await report('--now', at(41), '--format', 'json');
  const j = JSON.parse(r.out) as { since: string; until: string; fleet: { unobserved: number } };
  assert.equal([j.since, j.until], [new Date(T0 + 41 * H - 7 * 24 * H).toISOString(), at(41)]);
  // 7 d minus the 41 h covered, at the 4 GPUs of the first tick, plus the 48 of the gap.
  assert.is(j.fleet.unobserved, (7 * 24 - 41) * 4 + 48);
});

test('a bad --since, --since after --until, an unknown format: exit 1, one line naming the option', async () => {
  for (const [args, text] of [
    [['--since', 'yesterday'], /^llmgw report: --since "yesterday": expected a duration/],
    [['--since', at(5), '--until', at(4)], /^llmgw report: --since must be before --until/],
    [['--format', 'xml'], /^llmgw report: --format xml: expected text, json or csv/],
  ] as const) {
    const r = await report(...args);
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.err, text);
    assert.is(r.err.trim().split('\n').length, 1);
    assert.is(r.out, '');
  }
});

test('a directory that is no git checkout: exit 1, one line', async () => {
  const c = captureIo({ cwd: root, env: { PATH: process.env.PATH, HOME: root } });
  const code = await main(['report', '--repo', root], c.io);
  assert.is(code, 1);
  assert.match(c.err(), /not a git checkout/);
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
