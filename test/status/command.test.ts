import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync, rmSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, exampleStatus, status } from './cli-helpers.js';

/** `fn` in a fresh temporary directory, removed afterwards whatever happens. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-status-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('--json and --format json print the same status JSON', async () => {
  const a = await exampleStatus('demo', '--json');
  const b = await exampleStatus('demo', '--format', 'json');
  assert.is(a.out, b.out);
  assert.is(JSON.parse(a.out).version, 1);
});

test('an unknown --format is a usage error, exit 1, one line', async () => {
  const r = await exampleStatus('demo', '--format', 'yaml');
  assert.is(r.code, 1);
  assert.is(r.err, 'llmgw status: --format yaml: expected text, json or markdown\n');
});

test('a --now that is not an ISO time is a usage error', async () => {
  const r = await status(['--repo', 'examples/demo', '--observed', 'examples/demo/.llmgw/observed.json', '--now', 'yesterday']);
  assert.is(r.code, 1);
  assert.match(r.err, /^llmgw status: --now "yesterday": expected an ISO time/);
});

test('--now decides conditions: the demo unreachable node is lost 20 minutes later', async () => {
  const r = await status(['--repo', 'examples/demo', '--observed', 'examples/demo/.llmgw/observed.json', '--now', '2026-11-29T08:20:00Z', '--json']);
  const lost = JSON.parse(r.out).nodes.lost.map((n: { node: string }) => n.node);
  assert.equal(lost, ['gpu-a04', 'gpu-b04']);
});

test('without --observed it gathers over SSH: a node it cannot reach is reported, never a crash', () =>
  inTempDir(async (dir) => {
    // HOME beside the repo, not the repo itself: ~/.ssh/known_hosts may not lie inside the config repo.
    cpSync(join(ROOT, 'examples/demo'), join(dir, 'repo'), { recursive: true });
    // No key and no agent: every node fails at authentication set-up, at once.
    const r = await status(['--repo', join(dir, 'repo'), '--now', '2026-11-29T08:00:00Z', '--json'], { env: { HOME: dir } });
    assert.is(r.code, 0);
    const json = JSON.parse(r.out);
    assert.is(
      json.fabrics.reduce((n: number, f: { reachable: number }) => n + f.reachable, 0),
      0,
    );
    // Carried over from the committed snapshot: gpu-b04 was already lost, the rest are unreachable since now.
    assert.equal(
      json.nodes.lost.map((n: { node: string }) => n.node),
      ['gpu-b04'],
    );
    assert.is(json.nodes.unreachable.length, 7);
    // Newly unreachable nodes are stamped with --now, the clock the command judges by.
    const since = Object.fromEntries(json.nodes.unreachable.map((n: { node: string; since: string }) => [n.node, n.since]));
    assert.is(since['gpu-a04'], '2026-11-29T07:56:00Z');
    assert.is(since['gpu-a01'], '2026-11-29T08:00:00Z');
  }));

test('an invalid config prints file:line:col errors and exits 1', () =>
  inTempDir(async (dir) => {
    cpSync(join(ROOT, 'examples/demo'), dir, { recursive: true });
    writeFileSync(join(dir, 'models.yaml'), 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - name: x\n    weights: w\n    engine: nope\n    gpus: 0\n');
    const r = await status(['--repo', dir, '--observed', join(dir, '.llmgw/observed.json'), '--now', '2026-11-29T08:00:00Z']);
    assert.is(r.code, 1);
    assert.match(r.err, /models\.yaml:\d+:\d+: models\[0\]\.gpus/);
    assert.is(r.out, '');
  }));

test('a snapshot that breaks the schema is one clear error, not a crash', () =>
  inTempDir(async (dir) => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [{ name: 'gpu-a01', reachable: true, report: { gpus: 'many' } }], routers: [] }),
    );
    const r = await status(['--repo', 'examples/demo', '--observed', file, '--now', '2026-11-29T08:00:00Z']);
    assert.is(r.code, 1);
    assert.match(r.err, /^llmgw status: .*bad\.json: not a valid snapshot \(/m);
    assert.not.match(r.err, /internal error/);
  }));

test('text is coloured on a terminal, plain when NO_COLOR is set or when piped', async () => {
  const argv = ['--repo', 'examples/demo', '--observed', 'examples/demo/.llmgw/observed.json', '--now', '2026-11-29T08:00:00Z'];
  assert.ok((await status(argv, { tty: true })).out.includes('\x1b['));
  assert.not.ok((await status(argv, { tty: true, env: { NO_COLOR: '1' } })).out.includes('\x1b['));
  assert.not.ok((await status(argv, { tty: false })).out.includes('\x1b['));
});

test('config warnings go to stderr as warning: file:line:col lines', async () => {
  const r = await exampleStatus('large', '--json');
  assert.is(r.code, 0);
  assert.match(r.err, /^warning: examples\/large\/cluster\.yaml:\d+:\d+: notify\.webhooks\[0\]\.url: /m);
});

test.run();
