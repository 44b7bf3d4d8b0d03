// What the console's pages say: hostile text from nodes stays text, no secret
// reaches a page, an invalid or never-observed repo says so, and the ticks
// page reads llmgw's commits and what each changed from git history.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stableJson } from '../../src/util/fs.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { gpus, replica, report } from '../fixtures/index.js';
import { get, withConsole } from './helpers.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: lab
fabrics: [ib-a]
nodes:
  - { name: n1, fabric: ib-a }
  - { name: n2, fabric: ib-a }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}"] }
notify:
  webhooks:
    - url: https://hooks.example/T0KEN-in-the-url
      secret: \${LLMGW_CONSOLE_TEST_SECRET}
`;
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 1 }
`;
const EVIL = '"><script>alert(1)</script><img src=x onerror=alert(2)>';

function repoWith(snapshot: Snapshot | null, cluster = CLUSTER): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-console-pages-'));
  writeFileSync(join(dir, 'cluster.yaml'), cluster);
  writeFileSync(join(dir, 'models.yaml'), MODELS);
  if (snapshot) {
    mkdirSync(join(dir, '.llmgw'));
    writeFileSync(join(dir, '.llmgw/observed.json'), stableJson(snapshot));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function hostile(): Snapshot {
  const r = report(gpus(2, `NVIDIA ${EVIL}`, [1]), [replica(`x${EVIL}`, [0], { model: `m${EVIL}`, state: 'failed', error: `<iframe src=//e.vil>${EVIL}` })]);
  r.gpus[1] = { ...r.gpus[1]!, reason: `</td><script>alert(3)</script>` };
  r.warnings = [`<svg onload=alert(4)>`];
  return {
    version: 1,
    observedAt: '2026-11-29T08:00:00Z',
    nodes: [
      { name: 'n1', reachable: true, report: r },
      {
        name: 'n2',
        reachable: false,
        error: `<svg/onload=alert(5)> \u001b[31m`,
        reason: 'bad-reply',
        unreachableSince: '2026-11-29T07:59:00Z',
        lastReport: null,
      },
    ],
    routers: [],
  };
}

test('text a node sends (GPU names, replica ids, errors, warnings) is text on every page, never markup', async () => {
  const repo = repoWith(hostile());
  try {
    await withConsole(repo.dir, async (url) => {
      const paths = ['/', '/models', '/nodes', '/nodes/n1', '/nodes/n2', `/models/${encodeURIComponent(`m${EVIL}`)}`, '/ticks'];
      for (const p of paths) {
        const r = await get(url, p);
        assert.is(r.status, 200, p);
        assert.not.match(r.text, /<script>alert|<img src=x|<iframe|<svg[ /]onload|onerror=alert\(2\)>/i, p);
        assert.not.match(r.text, /\u001b/, `${p}: no escape character`);
      }
      const node = (await get(url, '/nodes/n1')).text;
      assert.ok(node.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'shown as text');
      assert.ok(node.includes('&lt;svg onload=alert(4)&gt;'), 'the warning, as text');
      const down = (await get(url, '/nodes/n2')).text;
      assert.ok(down.includes('bad reply') && down.includes('&lt;svg/onload=alert(5)&gt;'));
    });
  } finally {
    repo.remove();
  }
});

test('no secret reaches a page: not a webhook URL from cluster.yaml, not a ${VAR} value from the environment', async () => {
  process.env.LLMGW_CONSOLE_TEST_SECRET = 'hunter2-secret';
  const repo = repoWith(hostile());
  try {
    await withConsole(repo.dir, async (url) => {
      for (const p of ['/', '/models', '/nodes', '/nodes/n1', '/ticks', '/status.json']) {
        const r = await get(url, p);
        assert.not.match(r.text, /hooks\.example|T0KEN|hunter2/, p);
      }
      assert.not.match((await get(url, '/')).text, /No <code>notify\.webhooks<\/code>/, 'a webhook is set: no warning');
    });
  } finally {
    delete process.env.LLMGW_CONSOLE_TEST_SECRET;
    repo.remove();
  }
});

test('without webhooks the Overview warns first and shows the YAML to add, as STATUS.md does', async () => {
  const repo = repoWith(hostile(), CLUSTER.replace(/notify:[^]*$/, ''));
  try {
    await withConsole(repo.dir, async (url) => {
      const page = (await get(url, '/')).text;
      const warn = page.indexOf('id="webhook-warning"');
      assert.ok(warn > 0 && warn < page.indexOf('id="attention"'));
      assert.ok(page.includes('    - url: ${LLMGW_WEBHOOK_URL}'));
    });
  } finally {
    repo.remove();
  }
});

test('an invalid config: every fleet page says so with the errors and keeps the last STATUS.md; status.json is 503', async () => {
  const repo = repoWith(hostile(), CLUSTER.replace('fabric: ib-a }', 'fabirc: ib-a }'));
  writeFileSync(join(repo.dir, 'STATUS.md'), '# Fleet status: lab\n\nthe last summary <b>\n');
  try {
    await withConsole(repo.dir, async (url) => {
      for (const p of ['/', '/models', '/nodes/n1']) {
        const r = await get(url, p);
        assert.is(r.status, 200, p);
        assert.ok(r.text.includes('The config is invalid'), p);
        assert.match(r.text, /cluster\.yaml:6:\d+: nodes\[0\]/, p);
        assert.ok(r.text.includes('the last summary &lt;b&gt;'), p);
      }
      assert.is((await get(url, '/status.json')).status, 503);
    });
  } finally {
    repo.remove();
  }
});

test('a repo never reconciled says the fleet appears after a first reconcile', async () => {
  const repo = repoWith(null);
  try {
    await withConsole(repo.dir, async (url) => {
      const r = await get(url, '/');
      assert.is(r.status, 200);
      assert.match(r.text, /\.llmgw\/observed\.json is not there yet: the fleet appears here once a first llmgw reconcile has observed it\./);
    });
  } finally {
    repo.remove();
  }
});

function git(dir: string, args: string[], author = 'alice'): string {
  // llmgw's commits carry its email (a tick is known by that, never by the name: src/git/tick-commit.ts).
  const email = author === 'llmgw' ? 'llmgw@localhost' : `${author}@example`;
  return execFileSync('git', ['-c', `user.name=${author}`, '-c', `user.email=${email}`, ...args], { cwd: dir, encoding: 'utf8' }).trim();
}

test('ticks: llmgw commits and people changes from git history; a tick says which replicas started, stopped or changed, and how STATUS.md changed', async () => {
  const first = hostile();
  const repo = repoWith(null);
  try {
    git(repo.dir, ['init', '-q', '-b', 'main']);
    git(repo.dir, ['add', '.']);
    git(repo.dir, ['commit', '-qm', 'lab: first config']);
    const one: Snapshot = {
      ...first,
      nodes: [{ name: 'n1', reachable: true, report: report(gpus(2), [replica('m-0', [0], { state: 'starting' })]) }, first.nodes[1]!],
    };
    mkdirSync(join(repo.dir, '.llmgw'));
    writeFileSync(join(repo.dir, '.llmgw/observed.json'), stableJson(one));
    writeFileSync(join(repo.dir, 'STATUS.md'), '# Fleet status: lab\n\n1 starting\n');
    git(repo.dir, ['add', '.']);
    git(repo.dir, ['commit', '-qm', 'llmgw: started 1 (lab)'], 'llmgw');
    const two: Snapshot = {
      ...one,
      nodes: [{ name: 'n1', reachable: true, report: report(gpus(2), [replica('m-0', [0]), replica('m-1', [1], { state: 'failed' })]) }, one.nodes[1]!],
    };
    writeFileSync(join(repo.dir, '.llmgw/observed.json'), stableJson(two));
    writeFileSync(join(repo.dir, 'STATUS.md'), '# Fleet status: lab\n\n1 running\n');
    git(repo.dir, ['add', '.']);
    git(repo.dir, ['commit', '-qm', 'llmgw: n2 lost; started 1 (lab)'], 'llmgw');
    const tick = git(repo.dir, ['rev-parse', 'HEAD']);
    const config = git(repo.dir, ['rev-list', '--max-parents=0', 'HEAD']);
    await withConsole(repo.dir, async (url) => {
      const list = (await get(url, '/ticks')).text;
      const rows = [...list.matchAll(/<tr data-key="([0-9a-f]{40})">.*?<\/tr>/gs)].map((m) => m[0]);
      assert.is(rows.length, 3);
      assert.match(rows[0]!, /tick.*llmgw: n2 lost; started 1 \(lab\)/s);
      assert.match(rows[2]!, /change.*lab: first config.*alice/s);
      const overview = (await get(url, '/')).text;
      assert.match(overview, new RegExp(`last tick .*<a href="/ticks/${tick}">llmgw: n2 lost; started 1 \\(lab\\)</a>`));
      const detail = (await get(url, `/ticks/${tick.slice(0, 12)}`)).text;
      assert.match(detail, /<tr data-key="m-0"><td>changed<\/td><td>m-0<\/td>.*starting → running/s);
      assert.match(detail, /<tr data-key="m-1" class="attention"><td>started<\/td><td>m-1<\/td>.*— → failed/s);
      assert.match(detail, /<span class="del">-1 starting<\/span>\n<span class="add">\+1 running<\/span>/);
      const change = (await get(url, `/ticks/${config}`)).text;
      assert.ok(change.includes('This commit changed cluster.yaml and models.yaml'));
      assert.not.match(change, /hooks\.example/, 'a config change is named, not shown');
    });
  } finally {
    repo.remove();
  }
});

test.run();
