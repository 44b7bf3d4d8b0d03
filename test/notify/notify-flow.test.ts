// Detect, queue and deliver together, as a tick does: a lost node reaches a
// real signed receiver once across ticks and across a restart, and an event a
// receiver missed is sent again with the same id.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { detectEvents } from '../../src/notify/events.js';
import { deliverOutbox, enqueue } from '../../src/notify/outbox.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { WebhookConfig } from '../../src/types/config.js';
import { conditionFleet } from '../fixtures/index.js';

/** One tick: detect, queue, commit (a JSON round trip, as after a restart), deliver. */
async function tick(state: State, now: string, hooks: WebhookConfig[]): Promise<State> {
  const r = detectEvents(state, {
    cluster: 'prod-eu',
    fleet: conditionFleet({ nodes: { 'gpu-a02': 'lost' }, models: {} }, now),
    plan: null,
    applyFailures: [],
    configErrors: null,
    now,
  });
  const committed = JSON.parse(JSON.stringify(enqueue(r.state, r.events, hooks))) as State;
  return deliverOutbox(committed, hooks, { now: () => new Date(now), log: () => undefined, backoffMs: 1 });
}

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
    for (const now of ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z']) state = await tick(state, now, hooks);
    assert.is(got.length, 1);
    assert.is(JSON.parse(got[0]!.body).event, 'node.lost');
    assert.is(got[0]!.sig, 'sha256=' + createHmac('sha256', 'k3y').update(got[0]!.body).digest('hex'));
    assert.equal(state.outbox, []);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('an event a receiver missed (it was down) is sent on the next tick with the same id and body, then never again', async () => {
  const got: { id: string; body: string }[] = [];
  let up = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ id: req.headers['webhook-id'] as string, body });
      res.writeHead(up ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hooks = [{ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }];
  try {
    let state: State = emptyState();
    for (const now of ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z', '2026-11-29T08:10:00Z']) {
      state = await tick(state, now, hooks);
      up = true; // the receiver comes back after the first tick
    }
    assert.is(new Set(got.map((g) => g.id)).size, 1, 'one id for every attempt');
    assert.is(new Set(got.map((g) => g.body)).size, 1);
    assert.is(got.length, 3, 'twice while down (one retry in the tick), once when up');
    assert.ok(state.notified['node.lost/gpu-a02'] !== undefined);
    assert.equal(state.outbox, []);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
