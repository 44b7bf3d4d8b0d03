// The console in a real headless Chromium (docs/status.md): every page of
// examples/large and of a reconciled demo fleet loads without a console error
// or failed request, shows the numbers `llmgw status --json` has, can be
// walked with Tab, and is photographed at 1280×800 and 390×844
// (test-output/console/). A page open in the browser reloads itself when a
// tick commits.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'puppeteer-core';
import { startConsole, type ConsoleServer } from '../../src/console/server.js';
import type { StatusReport } from '../../src/status/index.js';
import { SHOTS, launchChromium, tabThrough, watchProblems, type Chromium } from '../helpers/browser.js';
import { startE2E, type E2E } from '../e2e/fleet-world.js';
import { exampleStatus, status } from '../status/cli-helpers.js';
import { copyExample } from './helpers.js';

const SIZES = [
  [1280, 800],
  [390, 844],
] as const;
const NAV = ['/', '/models', '/nodes', '/ticks'];

// Undefined until test.before has made them; test.after closes whatever it got to.
let chromium: Chromium | undefined;
let e: E2E | undefined;
let large: { dir: string; remove: () => void } | undefined;
const servers: ConsoleServer[] = [];

async function serve(dir: string, refreshMs = 5000): Promise<string> {
  const s = await startConsole({ dir, displayDir: dir, listen: { host: '127.0.0.1', port: 0 }, refreshMs });
  servers.push(s);
  return s.url;
}

test.before(async () => {
  chromium = await launchChromium();
  large = copyExample('large');
  e = await startE2E();
  await e.tick();
  await e.waitRunning(7);
  await e.tick();
});

test.after(async () => {
  for (const s of servers) await s.close();
  await chromium?.close();
  await e?.close();
  large?.remove();
});

/** Load a page at a size; fail on anything the page complained about; screenshot it. */
async function visit(page: Page, problems: string[], url: string, shot: string, [w, h]: readonly [number, number]): Promise<void> {
  problems.length = 0;
  await page.setViewport({ width: w, height: h });
  const res = await page.goto(url, { waitUntil: 'load' });
  assert.is(res?.status(), 200, url);
  await page.screenshot({ path: join(SHOTS, `${shot}-${w}.png`) });
  assert.equal(problems, [], `${url} at ${w}×${h}`);
}

function cellsOf(page: Page, selector: string): Promise<Record<string, string[]>> {
  return page.$$eval(selector, (rows) =>
    Object.fromEntries(rows.map((r) => [r.getAttribute('data-key') ?? '', [...r.querySelectorAll('td')].map((td) => td.textContent.trim())])),
  );
}

/** The Overview's numbers against the status JSON: capacity, fabrics, every model (folded ones too), attention, idle. */
async function checkNumbers(page: Page, report: StatusReport): Promise<void> {
  const capacity = await cellsOf(page, '#capacity tbody tr');
  for (const c of report.capacity)
    assert.equal(capacity[c.class]!.slice(2).map(Number), [c.total, c.used, c.free, c.unhealthy, c.other, c.unreachable, c.cordoned], c.class);
  const fabrics = await cellsOf(page, '#fabrics tbody tr');
  for (const f of report.fabrics) {
    const whole =
      Object.entries(f.freeWholeNodes)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || '—';
    assert.equal(fabrics[f.name], [f.name, String(f.nodes), String(f.reachable), whole], f.name);
  }
  const models = await cellsOf(page, '#models tbody tr');
  assert.is(Object.keys(models).length, report.models.length);
  for (const m of report.models) assert.equal(models[m.name]!.slice(1).map(Number), [m.desired, m.running, m.starting, m.failed], m.name);
  const headlines = await page.$$eval('#attention li .headline', (els) => els.map((x) => x.textContent));
  assert.equal(
    headlines,
    report.attention.map((a) => a.text),
  );
  assert.is(Object.keys(await cellsOf(page, '#idle tbody tr')).length, report.idle.length);
  for (const n of [...report.nodes.lost, ...report.nodes.unreachable]) {
    const row = (await cellsOf(page, '#nodes tbody tr'))[n.node]!;
    assert.ok(row[1]!.startsWith(n.since === null || report.nodes.lost.includes(n) ? 'lost' : 'unreachable'), n.node);
  }
}

/** Tab reaches the four page links on every page; on the Overview, every link a reader can see, in order. */
async function checkKeyboard(page: Page, everyLink: boolean): Promise<void> {
  const links = await page.$$eval('a', (as) => as.length);
  const reached = (await tabThrough(page, links + 20)).filter((p) => p.startsWith('/'));
  for (const p of NAV) assert.ok(reached.includes(p), `Tab reaches ${p}`);
  if (!everyLink) return;
  const visible = await page.$$eval('a', (as) => as.filter((a) => !a.closest('details:not([open])')).map((a) => new URL(a.href).pathname));
  assert.equal(reached, visible);
}

async function walk(base: string, name: string, report: StatusReport, extra: string[]): Promise<void> {
  const page = await chromium!.browser.newPage();
  const problems = watchProblems(page);
  try {
    for (const size of SIZES) {
      await visit(page, problems, base + '/', `${name}-overview`, size);
      await checkNumbers(page, report);
      await checkKeyboard(page, size[0] === 1280);
      for (const [i, p] of [...NAV.slice(1), ...extra].entries()) {
        await visit(page, problems, base + p, `${name}-${i}-${p.split('/')[1]}`, size);
        await checkKeyboard(page, false);
        if (p === '/models') assert.is((await page.$$('#main tbody tr')).length, report.models.length);
        if (p === '/nodes')
          assert.is(
            (await page.$$('#main tbody tr')).length,
            report.fabrics.reduce((n, f) => n + f.nodes, 0),
          );
      }
    }
  } finally {
    await page.close();
  }
}

test('examples/large: every page loads clean at both sizes, shows the numbers of status --json, and Tab reaches every link', async () => {
  const report = JSON.parse((await exampleStatus('large', '--json')).out) as StatusReport;
  const base = await serve(large!.dir);
  const failed = report.replicas.find((r) => r.state === 'failed')!;
  await walk(base, 'large', report, [`/models/${failed.model}`, `/nodes/${report.nodes.unreachable[0]!.node}`, `/nodes/${report.unhealthyGpus[0]!.node}`]);
});

test("the demo's reconciled fleet: every page, a model, a node and the last tick load clean; the numbers are status --json's", async () => {
  const snapshot = JSON.parse(await (await import('node:fs/promises')).readFile(join(e!.workdir, '.llmgw/observed.json'), 'utf8')) as { observedAt: string };
  const r = await status(['--repo', e!.workdir, '--observed', join(e!.workdir, '.llmgw/observed.json'), '--now', snapshot.observedAt, '--json']);
  assert.is(r.code, 0, r.err);
  const report = JSON.parse(r.out) as StatusReport;
  const base = await serve(e!.workdir);
  const head = (await e!.repo.head()).slice(0, 12);
  await walk(base, 'demo', report, [`/models/${report.models[0]!.name}`, `/nodes/${e!.world.nodeNames[0]}`, `/ticks/${head}`]);
});

test('a page open in the browser reloads itself when a tick commits, and then shows what changed', async () => {
  const base = await serve(e!.workdir, 250);
  const page = await chromium!.browser.newPage();
  const problems = watchProblems(page);
  try {
    await page.goto(base + '/', { waitUntil: 'load' });
    const before = await page.$eval('body', (b) => b.getAttribute('data-version'));
    assert.not.ok((await page.content()).includes('gpu-a03</a> <span class="detail">(refused)'));
    const down = e!.world.sim.setFaultAsync('gpu-a03', 'refuse');
    e!.world.sim.dropConnections('gpu-a03');
    await down;
    const reloaded = page.waitForNavigation({ timeout: 20_000 });
    const t = await e!.tick();
    assert.ok(t.commit, 'the tick committed');
    await reloaded;
    for (let i = 0; i < 50 && (await page.$eval('body', (b) => b.getAttribute('data-version'))) === before; i++) await sleep(100);
    assert.is.not(await page.$eval('body', (b) => b.getAttribute('data-version')), before);
    // The reason as the tick committed it: refused, as a rule, but a loaded
    // machine can turn the refused reconnect into a timeout; the page must say
    // whichever the commit says.
    const committed = JSON.parse(await (await import('node:fs/promises')).readFile(join(e!.workdir, '.llmgw/observed.json'), 'utf8')) as {
      nodes: { name: string; reachable: boolean; reason?: string }[];
    };
    const a03 = committed.nodes.find((n) => n.name === 'gpu-a03') ?? { name: 'gpu-a03', reachable: true };
    assert.is(a03.reachable, false, 'the committed snapshot has gpu-a03 unreachable');
    const html = await page.content();
    const near = html.slice(Math.max(0, html.indexOf('gpu-a03</a>') - 80), html.indexOf('gpu-a03</a>') + 120);
    assert.ok(
      html.includes(`gpu-a03</a> <span class="detail">(${a03.reason ?? 'unknown'})</span>`),
      `the new page names the node and its reason (${a03.reason ?? 'unknown'}); it shows: ${near}`,
    );
    assert.equal(problems, []);
  } finally {
    await page.close();
    await e!.world.sim.setFaultAsync('gpu-a03', null);
  }
});

test.run();
