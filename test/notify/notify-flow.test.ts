// Detect and deliver together, as a tick does: a lost node reaches a real signed
// receiver exactly once across ticks and across a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { detectEvents, keepUndelivered } from '../../src/notify/events.js';
import { deliver } from '../../src/notify/webhook.js';
import { emptyState, type State } from '../../src/types/state.js';
import { fleet } from './fleet-fixture.js';

test('node.lost reaches a signed receiver once, not again on the next tick nor after a restart', async () => {
  const got: { body: string; sig: string | undefined }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ body, sig: req.headers['x-llmgw-signature-256'] as string | undefined });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const hooks = [{ url, secret: 'k3y', events: ['node.lost' as const] }];
  try {
    let state: State = emptyState();
    const times = ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z'];
    for (const now of times) {
      const r = detectEvents(state, { cluster: 'prod-eu', fleet: fleet({ nodes: { 'gpu-a02': 'lost' }, models: {} }, now), plan: null, applyFailures: [], configErrors: null, now });
      await deliver(hooks, r.events);
      state = JSON.parse(JSON.stringify(r.state)) as State; // committed and read back, as after a restart
    }
    assert.is(got.length, 1);
    assert.is(JSON.parse(got[0]!.body).event, 'node.lost');
    assert.is(got[0]!.sig, 'sha256=' + createHmac('sha256', 'k3y').update(got[0]!.body).digest('hex'));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('an event no webhook took (receiver down) is sent on the next tick, then never again', async () => {
  const got: string[] = [];
  let up = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (!up) return void res.writeHead(503).end();
      got.push(JSON.parse(body).event);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const hooks = [{ url }];
  try {
    let state: State = emptyState();
    for (const now of ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z', '2026-11-29T08:10:00Z']) {
      const r = detectEvents(state, { cluster: 'prod-eu', fleet: fleet({ nodes: { 'gpu-a02': 'lost' }, models: {} }, now), plan: null, applyFailures: [], configErrors: null, now });
      const { undelivered } = await deliver(hooks, r.events, { retries: 0 });
      state = keepUndelivered(state, r.state, undelivered);
      up = true; // the receiver comes back after the first tick
    }
    assert.equal(got, ['node.lost']);
    assert.ok(state.notified['node.lost/gpu-a02'] !== undefined);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('a recovery no webhook took reopens its condition, so the recovery is detected and sent again', () => {
  const prev: State = { ...emptyState(), notified: { 'node.lost/gpu-a02': '2026-11-29T07:00:00Z', 'model.down/m': '2026-11-29T07:00:00Z' } };
  const next: State = { ...prev, notified: { 'model.down/m': '2026-11-29T07:00:00Z' } };
  const recovered = { event: 'node.recovered' as const, cluster: 'c', time: 't', subject: 'gpu-a02', text: '', details: {} };
  const opened = { event: 'model.unplaceable' as const, cluster: 'c', time: 't', subject: 'x', text: '', details: {} };
  const withOpen: State = { ...next, notified: { ...next.notified, 'model.unplaceable/x': 't' } };
  assert.equal(keepUndelivered(prev, withOpen, [recovered, opened]).notified, {
    'model.down/m': '2026-11-29T07:00:00Z',
    'node.lost/gpu-a02': '2026-11-29T07:00:00Z',
  });
  assert.is(keepUndelivered(prev, next, []), next);
});

test.run();
