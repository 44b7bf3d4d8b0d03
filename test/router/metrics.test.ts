// `router serve --metrics`: Prometheus text from prom-client, scraped after real requests.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chat, clientAgent, engineTracker, request, withRouter, type TestRouter } from './helpers.js';

const test = suite('router metrics');
let router: TestRouter;
const { engine, closeAll } = engineTracker();

test.before(async () => {
  // A model with no replica answers 503 once its (short) wait is over.
  router = await withRouter({ metrics: { host: '127.0.0.1', port: 0 }, liveness: { waitTimeoutMs: 20 } });
});
test.after(async () => {
  await router.close();
  await closeAll();
  clientAgent.destroy();
});

async function scrape(): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`http://127.0.0.1:${router.metricsPort}/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The value of one sample line, e.g. sample(text, 'llmgw_router_requests_total{model="m",code="200"}'). */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;

test('after real requests, requests_total counts them per model and code, durations per model, in flight 0', async () => {
  const ok = await engine('ok');
  const failing = await engine('bad', (_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await router.setTable({ m: [{ replica: 'm-0', url: ok.url }], f: [{ replica: 'f-0', url: failing.url }], empty: [] });
  for (let i = 0; i < 3; i++) assert.is((await chat(router.port, 'm')).status, 200);
  assert.is((await chat(router.port, 'f')).status, 500);
  assert.is((await chat(router.port, 'empty')).status, 503);
  assert.is((await chat(router.port, 'nope')).status, 404);
  assert.is((await request(router.port, '/v1/models', null, 'GET')).status, 200);
  const r = await scrape();
  assert.is(r.status, 200);
  assert.match(r.type!, /^text\/plain; version=0\.0\.4/);
  assert.is(sample(r.text, 'llmgw_router_requests_total{model="m",code="200"}'), 3);
  assert.is(sample(r.text, 'llmgw_router_requests_total{model="f",code="500"}'), 1);
  assert.is(sample(r.text, 'llmgw_router_requests_total{model="empty",code="503"}'), 1);
  assert.is(sample(r.text, 'llmgw_router_requests_total{model="-",code="404"}'), 1, 'an unknown model is not a label value of its own');
  assert.is(sample(r.text, 'llmgw_router_requests_total{model="-",code="200"}'), 1, '/v1/models');
  assert.is(sample(r.text, 'llmgw_router_request_duration_seconds_count{model="m"}'), 3);
  assert.is(sample(r.text, 'llmgw_router_request_duration_seconds_bucket{le="+Inf",model="m"}'), 3);
  assert.is(sample(r.text, 'llmgw_router_request_duration_seconds_bucket{le="600",model="m"}'), 3, 'buckets are cumulative');
  const fastest = sample(r.text, 'llmgw_router_request_duration_seconds_bucket{le="0.005",model="m"}')!;
  assert.ok(fastest >= 0 && fastest <= 3);
  assert.ok(sample(r.text, 'llmgw_router_request_duration_seconds_sum{model="m"}')! > 0);
  assert.is(sample(r.text, 'llmgw_router_inflight{model="m"}'), 0);
  assert.not.match(r.text, /model="nope"/);
  assert.match(r.text, /# TYPE llmgw_router_requests_total counter/);
  assert.match(r.text, /# TYPE llmgw_router_request_duration_seconds histogram/);
  assert.match(r.text, /# TYPE llmgw_router_inflight gauge/);
});

test('llmgw_router_inflight counts a request held by its engine, and drops when it ends', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const slow = await engine('slow', (_req, res) => void held.then(() => res.end('{}')));
  await router.setTable({ s: [{ replica: 's-0', url: slow.url }] });
  const reply = chat(router.port, 's');
  let during: number | null = null;
  for (let i = 0; i < 200 && during !== 1; i++) during = sample((await scrape()).text, 'llmgw_router_inflight{model="s"}');
  assert.is(during, 1);
  release();
  await reply;
  assert.is(sample((await scrape()).text, 'llmgw_router_inflight{model="s"}'), 0);
});

test('anything but GET /metrics on the metrics listener is 404', async () => {
  const res = await fetch(`http://127.0.0.1:${router.metricsPort}/other`);
  assert.is(res.status, 404);
  await res.text();
});

test(`promtool check metrics passes on the output${hasPromtool ? '' : ' (SKIPPED: promtool is not installed)'}`, async () => {
  if (!hasPromtool) return;
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-prom-'));
  try {
    const file = join(dir, 'metrics.txt');
    writeFileSync(file, (await scrape()).text);
    const out = spawnSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
    assert.is(out.status, 0, out.stdout + out.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
