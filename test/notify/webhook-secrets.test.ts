// A webhook's URL is a secret (docs/notifications.md#secrets-stay-secret): a
// token may sit in its path, in `user:pass@`, even in its host name. So a
// hook is named by its position and the variables its URL came from, never
// by any part of the URL; and credentials in the URL are sent as HTTP Basic
// auth (fetch refuses a URL carrying them, which used to mean the hook never
// got anything and the log said only "request failed").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NotifyEvent } from '../../src/notify/events.js';
import { deliverOutbox, enqueue, eventId } from '../../src/notify/outbox.js';
import { hookName, postTarget, requestHeaders } from '../../src/notify/webhook.js';
import type { WebhookConfig } from '../../src/types/config.js';
import { emptyState } from '../../src/types/state.js';
import { CLUSTER, modelsYaml, validConfig } from '../fixtures/config-yaml.js';
import { closedPort, receiver } from './http-receiver.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const lost: NotifyEvent = {
  event: 'node.lost',
  cluster: 'prod-eu',
  time: NOW.toISOString(),
  subject: 'gpu-a02',
  text: '[prod-eu] Node gpu-a02 is lost.',
  details: { node: 'gpu-a02' },
};

/** The webhooks as cluster.yaml resolves them with this environment. */
function hooksFrom(urls: string[], env: Record<string, string>): WebhookConfig[] {
  const cluster = CLUSTER + `notify:\n  webhooks:\n${urls.map((u) => `    - url: "${u}"\n`).join('')}`;
  return validConfig(cluster, modelsYaml([]), { env, strictEnv: true }).cluster.notify.webhooks;
}

test('a webhook is named by its position and its variable, never by its URL or host: a failed delivery’s line carries no part of the URL', async () => {
  const port = await closedPort();
  const token = 'canary-token-5f1e';
  const hooks = hooksFrom(['${SLACK_URL}', 'http://127.0.0.1:' + String(port) + '/' + token, 'http://127.0.0.1:' + String(port) + '/x/${HOOK_PATH}'], {
    SLACK_URL: `http://127.0.0.1:${port}/T0/${token}`,
    HOOK_PATH: token,
  });
  assert.equal(
    hooks.map((h, i) => hookName(h, i)),
    ['webhook 1 ($SLACK_URL)', 'webhook 2', 'webhook 3 ($HOOK_PATH)'],
  );
  const lines: string[] = [];
  await deliverOutbox(enqueue(emptyState(), [lost], hooks), hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1 });
  assert.equal(lines.sort(), [
    `notify: webhook 1 ($SLACK_URL): node.lost gpu-a02 (${eventId(lost)}) not delivered: ECONNREFUSED; sent again next tick`,
    `notify: webhook 2: node.lost gpu-a02 (${eventId(lost)}) not delivered: ECONNREFUSED; sent again next tick`,
    `notify: webhook 3 ($HOOK_PATH): node.lost gpu-a02 (${eventId(lost)}) not delivered: ECONNREFUSED; sent again next tick`,
  ]);
  assert.ok(!lines.some((l) => l.includes(token) || l.includes('127.0.0.1') || l.includes(String(port))), 'neither token, host nor port');
});

test('a webhook URL with user:pass@ is sent as HTTP Basic auth, the credentials taken off the URL, and never printed', async () => {
  const rx = await receiver();
  try {
    const url = rx.url.replace('http://', 'http://hook%40user:p%3Ass%20w@');
    const hooks = hooksFrom(['${WITH_CREDENTIALS}'], { WITH_CREDENTIALS: url });
    const lines: string[] = [];
    const left = await deliverOutbox(enqueue(emptyState(), [lost], hooks), hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1 });
    assert.equal(left.outbox, [], 'the hook took it');
    assert.is(rx.hits.length, 1);
    assert.is(rx.hits[0]!.path, '/hook');
    assert.is(rx.hits[0]!.headers.authorization, 'Basic ' + Buffer.from('hook@user:p:ss w').toString('base64'));
    assert.equal(lines, []);
    assert.equal(postTarget(url), { url: rx.url, authorization: 'Basic ' + Buffer.from('hook@user:p:ss w').toString('base64') });
    assert.equal(postTarget(rx.url), { url: rx.url }, 'a URL without credentials is left as it is');
  } finally {
    await rx.close();
  }
});

test('an Authorization written in headers wins over credentials in the URL', () => {
  const headers = requestHeaders({ url: 'https://u:p@hooks.example/x', headers: { Authorization: 'Bearer t0k' } }, 'evt_0', '{}', 0);
  assert.is(headers.Authorization, 'Bearer t0k');
  assert.is(headers.authorization, undefined);
  assert.is(requestHeaders({ url: 'https://u:p@hooks.example/x' }, 'evt_0', '{}', 0).authorization, 'Basic ' + Buffer.from('u:p').toString('base64'));
});

test.run();
