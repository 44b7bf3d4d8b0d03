// The console's GPU-hours page (src/console/pages/gpu-hours.ts): the days as an
// inline-SVG stacked bar chart (no script, no style attribute, nothing fetched),
// the open day included, and the same figures as `llmgw report` for each day;
// one check through the console's real HTTP server on a scripted git history.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startConsole } from '../../src/console/server.js';
import { gpuHoursBody, gpuHoursChart } from '../../src/console/pages/gpu-hours.js';
import { emptyFleetCounts } from '../../src/ledger/buckets.js';
import type { DayHours } from '../../src/ledger/days.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml } from '../fixtures/tick-world.js';
import { tickCommit, writeHistory, type ScriptedCommit } from '../ledger/history-repo.js';
import { get } from './helpers.js';

function day(d: string, open: boolean, fleet: Partial<DayHours['fleet']>, models: DayHours['models'] = []): DayHours {
  return { day: d, open, since: `${d}T00:00:00.000Z`, until: `${d}T00:00:00.000Z`, models, fleet: { ...emptyFleetCounts(), ...fleet } };
}

const rects = (svg: string) =>
  [...svg.matchAll(/<rect class="g-(\w+)" x="(\d+)" y="([\d.]+)" width="(\d+)" height="([\d.]+)">/g)].map((m) => ({ bucket: m[1], h: Number(m[5]) }));

test('the chart: one stacked bar per day scaled to the largest, a shape per non-empty bucket, the open day labelled today', () => {
  const svg = gpuHoursChart([day('2026-11-28', false, { serving: 30, free: 18 }), day('2026-11-29', true, { serving: 6, idle: 6 })]).text;
  // 200 px of plot for the largest day (48 GPU-hours).
  assert.equal(rects(svg), [
    { bucket: 'serving', h: 125 },
    { bucket: 'free', h: 75 },
    { bucket: 'serving', h: 25 },
    { bucket: 'idle', h: 25 },
  ]);
  assert.match(svg, /<g data-day="2026-11-29">.*<text class="day open"[^>]*>today<\/text><\/g>/);
  assert.match(svg, /<title>2026-11-29 \(today, open\): 6\.00 idle<\/title>/);
  assert.match(svg, /aria-label="GPU-hours per UTC day by bucket\. 2026-11-28: 30\.00 serving, 0\.00 idle of 48\.00; /);
});

test("the body: no script, no style attribute, no URL but this console's; a model name is text, never markup", () => {
  const body = gpuHoursBody([day('2026-11-29', true, { serving: 1 }, [{ model: '<b>x</b>', serving: 1, idle: 0, transit: 0 }])], true).text;
  assert.not.match(body, /<script|style=|https?:/);
  assert.ok(body.includes('&lt;b&gt;x&lt;/b&gt;'));
  assert.not.ok(body.includes('<b>x</b>'));
});

test('without git history the page says there is nothing to count', () => {
  assert.match(gpuHoursBody([], false).text, /not a git checkout/);
});

const H = 3_600_000;
const D = Date.parse('2026-11-30T00:00:00Z');
const at = (h: number) => new Date(D + h * H).toISOString();
const gpus = [0, 1].map((index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const node = (name: string, replicas: object[]) => ({ name, reachable: true, report: { version: 1, gpus, replicas, storage: [], warnings: [] } });
const m0 = { id: 'm-0', model: 'm', gpus: [0], state: 'running', startedAt: at(-100), port: 8000, rank: 0 };
const tick = (h: number, nodes: object[]): ScriptedCommit => tickCommit(at(h), nodes, h);

test('through the console: the page is linked from every page, shows 7 closed days and today, each as the ledger counts it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'llmgw-console-gpu-hours-'));
  const dir = join(root, 'repo');
  writeHistory(dir, [
    {
      time: at(-49),
      email: 'person@example.com',
      message: 'the fleet',
      files: { 'cluster.yaml': tickClusterYaml({ nodes: 2 }), 'models.yaml': modelsYaml([{ name: 'm' }]) },
    },
    tick(-48, [node('g1', [m0]), node('g2', [])]),
    tick(-24, [node('g1', [m0]), node('g2', [])]),
    tick(-12, [node('g1', []), node('g2', [])]),
    tick(-6, [node('g1', [m0]), node('g2', [])]),
  ]);
  const server = await startConsole({ dir, displayDir: dir, listen: { host: '127.0.0.1', port: 0 }, now: () => new Date(D + 6 * H) });
  try {
    const overview = await get(server.url, '/');
    assert.match(overview.text, /<a href="\/gpu-hours">GPU-hours<\/a>/);
    const r = await get(server.url, '/gpu-hours');
    assert.is(r.status, 200);
    assert.match(r.text, /<a href="\/gpu-hours" aria-current="page">GPU-hours<\/a>/);
    assert.match(r.text, /<svg class="chart"/);
    const days = [...r.text.matchAll(/<g data-day="([\d-]+)">/g)].map((m) => m[1]);
    assert.equal(days, ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30']);
    // 2026-11-29: m-0 serves 12 h (00:00-12:00), stopped until 18:00, then 6 h again; today 6 h to 06:00.
    const row = (d: string) =>
      new RegExp(`<tr data-key="${d}">(.*?)</tr>`)
        .exec(r.text)?.[1]
        ?.match(/<td class="num">[^<]*/g)
        ?.map((c) => c.slice(16));
    assert.equal(row('2026-11-29')?.slice(0, 4), ['18.00', '0.00', '0.00', '78.00']);
    assert.equal(row('2026-11-30')?.slice(0, 4), ['6.00', '0.00', '0.00', '18.00']);
    assert.ok(r.text.includes('<td>2026-11-30 (today, open)</td>'));
    // The days before the first commit are unobserved at its 4 GPUs.
    assert.equal(row('2026-11-27')?.[8], '96.00');
    assert.match(r.text, /<tr data-key="m"><td><a href="\/models\/m">m<\/a><\/td><td class="num">42\.00<\/td>/);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
