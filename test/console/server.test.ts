// The console over real HTTP (src/console): read-only, loopback-only by Host,
// safe headers, the same numbers as `llmgw status --json`, escaped, secret-free.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exampleStatus } from '../status/cli-helpers.js';
import { copyExample, get, withConsole } from './helpers.js';

const PAGES = ['/', '/models', '/nodes', '/ticks', '/models/phi-4', '/nodes/a100-d05', '/nodes/hgx-a017'];

test('every page of examples/large answers 200 with safe headers: a CSP with no inline script or style, nosniff, no framing, never cached', async () => {
  const ex = copyExample('large');
  try {
    await withConsole(ex.dir, async (url) => {
      for (const p of PAGES) {
        const r = await get(url, p);
        assert.is(r.status, 200, p);
        assert.is(r.headers.get('content-type'), 'text/html; charset=utf-8', p);
        const csp = r.headers.get('content-security-policy')!;
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, /script-src 'self'(;|$)/);
        assert.not.match(csp, /unsafe-inline|unsafe-eval|\*/);
        assert.is(r.headers.get('x-content-type-options'), 'nosniff');
        assert.is(r.headers.get('x-frame-options'), 'DENY');
        assert.is(r.headers.get('cache-control'), 'no-store');
        assert.match(r.headers.get('server-timing') ?? '', /^load;dur=[\d.]+, render;dur=[\d.]+$/);
        assert.not.match(r.text, /<script>|<style|style="|onclick|onerror|javascript:/i, `${p}: no inline script or style`);
        assert.not.match(r.text, /https?:\/\/(?!www\.w3\.org)/, `${p}: nothing fetched from anywhere else`);
      }
    });
  } finally {
    ex.remove();
  }
});

test('only GET and HEAD: every other method is 405 with Allow, and changes nothing', async () => {
  const ex = copyExample('demo');
  try {
    await withConsole(ex.dir, async (url) => {
      const before = readFileSync(join(ex.dir, 'STATUS.md'), 'utf8');
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const r = await get(url, '/', { method, body: method === 'POST' || method === 'PUT' || method === 'PATCH' ? 'x' : undefined });
        assert.is(r.status, 405, method);
        assert.is(r.headers.get('allow'), 'GET, HEAD');
      }
      const head = await get(url, '/', { method: 'HEAD' });
      assert.is(head.status, 200);
      assert.is(head.text, '');
      assert.is(readFileSync(join(ex.dir, 'STATUS.md'), 'utf8'), before);
    });
  } finally {
    ex.remove();
  }
});

test('on loopback it answers only requests addressed to loopback (a rebound DNS name gets 421)', async () => {
  const ex = copyExample('demo');
  try {
    await withConsole(ex.dir, async (url) => {
      const { port } = new URL(url);
      const ask = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: Number(port), path: '/', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      assert.is(await ask('evil.example'), 421);
      assert.is(await ask(`evil.example:${port}`), 421);
      assert.is(await ask(`127.0.0.1:${port}`), 200);
      assert.is(await ask(`localhost:${port}`), 200);
    });
  } finally {
    ex.remove();
  }
});

test('/status.json is `llmgw status --json` of the same files, byte for byte', async () => {
  for (const example of ['demo', 'large']) {
    const ex = copyExample(example);
    try {
      const cli = await exampleStatus(example, '--json');
      await withConsole(ex.dir, async (url) => {
        const r = await get(url, '/status.json');
        assert.is(r.status, 200);
        assert.is(r.text, cli.out, example);
      });
    } finally {
      ex.remove();
    }
  }
});

test('unknown pages, models, nodes and commits are 404 pages; a bad escape in the path is 400', async () => {
  const ex = copyExample('demo');
  try {
    await withConsole(ex.dir, async (url) => {
      for (const p of ['/nope', '/models/nope', '/nodes/nope', '/ticks/0123456', '/nodes/a/b', '/index.html']) assert.is((await get(url, p)).status, 404, p);
      assert.is((await get(url, '/nodes/%E0%A4%A')).status, 400);
    });
  } finally {
    ex.remove();
  }
});

test('/api/version has an ETag, answers 304 while nothing changed, and a new version once a file changes', async () => {
  const ex = copyExample('demo');
  try {
    await withConsole(ex.dir, async (url) => {
      const first = await get(url, '/api/version');
      const etag = first.headers.get('etag')!;
      const { version } = JSON.parse(first.text) as { version: string };
      assert.is(etag, `"${version}"`);
      assert.ok((await get(url, '/')).text.includes(`data-version="${version}"`), 'the page carries the version it shows');
      assert.is((await get(url, '/api/version', { headers: { 'if-none-match': etag } })).status, 304);
      const statusFile = join(ex.dir, 'STATUS.md');
      writeFileSync(statusFile, readFileSync(statusFile, 'utf8') + '\n');
      utimesSync(statusFile, new Date(), new Date(Date.now() + 5000));
      const next = await get(url, '/api/version', { headers: { 'if-none-match': etag } });
      assert.is(next.status, 200);
      assert.is.not((JSON.parse(next.text) as { version: string }).version, version);
    });
  } finally {
    ex.remove();
  }
});

test.run();
