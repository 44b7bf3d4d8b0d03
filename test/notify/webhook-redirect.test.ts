// A webhook that answers with a redirect (docs/notifications.md): the signed POST
// never goes to the Location the receiver names (a hook URL may be taken over, or
// mistyped into an open redirector), and the delivery is final: not retried now,
// not kept for the next tick. Two real HTTP servers on 127.0.0.1.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliver } from '../../src/notify/webhook.js';
import type { NotifyEvent } from '../../src/notify/events.js';

interface Listening {
  url: string;
  hits: { method: string; path: string; body: string }[];
  close: () => Promise<void>;
}

async function serve(answer: (res: import('node:http').ServerResponse) => void): Promise<Listening> {
  const hits: Listening['hits'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', path: req.url ?? '', body });
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const event: NotifyEvent = {
  event: 'node.lost',
  cluster: 'prod-eu',
  time: '2026-11-29T08:00:00Z',
  subject: 'gpu-a02',
  text: '[prod-eu] Node gpu-a02 is lost.',
  details: { node: 'gpu-a02' },
};

for (const status of [301, 302, 303, 307, 308]) {
  test(`a webhook answering ${status} is not followed: the redirect target receives nothing, and the delivery is final`, async () => {
    const target = await serve((res) => res.writeHead(200).end('ok'));
    const redirector = await serve((res) => res.writeHead(status, { location: `${target.url}/stolen` }).end());
    const lines: string[] = [];
    try {
      const r = await deliver([{ url: redirector.url, secret: 'topsecret' }], [event], { backoffMs: 1, log: (l) => lines.push(l) });
      assert.equal(target.hits, [], 'nothing reached the redirect target');
      assert.is(redirector.hits.length, 1, 'asked once: a redirect is not retried');
      assert.is(redirector.hits[0]!.method, 'POST');
      assert.equal(r, { ok: 0, failed: 1, undelivered: [] }, 'counted failed and not kept for the next tick');
      assert.equal(lines, [`webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: HTTP ${status} (redirects are not followed)`]);
    } finally {
      await redirector.close();
      await target.close();
    }
  });
}

test.run();
