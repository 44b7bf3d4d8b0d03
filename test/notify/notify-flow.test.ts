// Detect and deliver together, as a tick does: a lost node reaches a real signed
// receiver exactly once across ticks and across a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { detectEvents } from '../../src/notify/events.js';
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

test.run();
