import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

const SECRET = 'e2e-hook-secret';
let e: E2E;
let url = '';
const logs: string[] = [];
let receiver: Server;
const received: { body: string; signature: string | undefined; event: string; subject: string }[] = [];

test.before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { event: string; subject: string };
      received.push({ body, signature: req.headers['x-llmgw-signature-256'] as string | undefined, event: parsed.event, subject: parsed.subject });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  e = await startE2E({
    modelsYaml: modelsYaml([]),
    webhooks: [{ url: '${LLMGW_WEBHOOK_URL}', secret: '${LLMGW_WEBHOOK_SECRET}' }],
    env: { LLMGW_WEBHOOK_URL: url, LLMGW_WEBHOOK_SECRET: SECRET },
  });
});
test.after(async () => {
  await e.close();
  await new Promise((r) => receiver.close(r));
});

test('a node going away fires node.lost exactly once, signed, and a restart does not resend it', async () => {
  const t0 = Date.parse('2026-11-29T08:00:00Z');
  const at = (min: number) => ({ now: () => new Date(t0 + min * 60_000), log: (l: string) => void logs.push(l) });
  await e.tick(at(0));
  // Gone: it refuses new connections and the kept-alive one drops, as a dead host's would.
  const refusing = e.world.sim.setFaultAsync('gpu-b04', 'refuse');
  e.world.sim.dropConnections('gpu-b04');
  await refusing;
  const gone = await e.tick(at(1));
  assert.is(gone.events.includes('node.lost'), false);
  assert.match(gone.status, /^- 1 node unreachable \(not yet lost\): gpu-b04 \(refused\)$/m, 'STATUS.md says which node and why');
  const lost = await e.tick(at(12));
  assert.equal(
    lost.events.filter((x) => x === 'node.lost'),
    ['node.lost'],
  );
  assert.ok(lost.commit);
  assert.match(await git(e.world.remote, ['log', '-1', '--format=%s', lost.commit]), /^llmgw: gpu-b04 lost/, 'the commit names the event');
  await e.tick(at(13));
  await e.tick(at(14));

  const hooks = received.filter((r) => r.event === 'node.lost');
  assert.is(hooks.length, 1);
  assert.is(hooks[0]!.subject, 'gpu-b04');
  const expected = 'sha256=' + createHmac('sha256', SECRET).update(hooks[0]!.body).digest('hex');
  assert.is(hooks[0]!.signature, expected);
  const state = await git(e.world.remote, ['show', 'main:.llmgw/state.json']);
  assert.match(state, /node\.lost\/gpu-b04/);
  assert.not.match(state, new RegExp(SECRET));
  assert.not.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /127\.0\.0\.1:\d+\/hook/);
});

test('neither the webhook URL nor its secret is in any commit, commit message or log line of those ticks', async () => {
  const history = await git(e.world.remote, ['log', '--all', '-p', '--format=%an %ae %s%n%b']);
  assert.ok(history.includes('node.lost/gpu-b04'), 'the history holds the ticks of the test above');
  assert.ok(logs.length > 0);
  for (const text of [history, logs.join('\n')]) {
    assert.not.ok(text.includes(SECRET));
    assert.not.ok(text.includes(url));
    assert.not.ok(text.includes('/hook'));
  }
});

test.run();
