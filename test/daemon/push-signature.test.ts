// The push webhook's signature checks (docs/operations.md#push-webhook): each forge's
// header, good, wrong and missing; and the receiver's answers: 202 and a tick for a
// good one, 401 and nothing started for anything else.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { verifyPush } from '../../src/daemon/push-signature.js';
import { parsePushListen, pushSecret, startPushReceiver } from '../../src/daemon/push-webhook.js';
import { UsageError } from '../../src/errors.js';

const SECRET = 'push-secret-0f9c';
const BODY = Buffer.from('{"ref":"refs/heads/main","after":"abc"}');
const hmac = (body: Buffer, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

test('GitHub: sha256=<hex HMAC of the raw body> passes; another body, another secret or no prefix does not', () => {
  assert.equal(verifyPush({ 'x-hub-signature-256': `sha256=${hmac(BODY)}` }, BODY, SECRET), { ok: true, provider: 'github' });
  assert.equal(verifyPush({ 'x-hub-signature-256': `sha256=${hmac(BODY).toUpperCase()}` }, BODY, SECRET), { ok: true, provider: 'github' });
  assert.is(verifyPush({ 'x-hub-signature-256': `sha256=${hmac(Buffer.from('other'))}` }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-hub-signature-256': `sha256=${hmac(BODY, 'wrong')}` }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-hub-signature-256': hmac(BODY) }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-hub-signature-256': 'sha256=zz' }, BODY, SECRET).ok, false);
});

test('Gitea: the bare hex HMAC passes; a wrong one does not', () => {
  assert.equal(verifyPush({ 'x-gitea-signature': hmac(BODY) }, BODY, SECRET), { ok: true, provider: 'gitea' });
  assert.is(verifyPush({ 'x-gitea-signature': hmac(BODY, 'nope') }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-gitea-signature': `sha256=${hmac(BODY)}` }, BODY, SECRET).ok, false);
});

test('GitLab: the token equal to the secret passes; a different one, or a prefix of it, does not', () => {
  assert.equal(verifyPush({ 'x-gitlab-token': SECRET }, BODY, SECRET), { ok: true, provider: 'gitlab' });
  assert.is(verifyPush({ 'x-gitlab-token': SECRET.slice(0, -1) }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-gitlab-token': `${SECRET}x` }, BODY, SECRET).ok, false);
  assert.is(verifyPush({ 'x-gitlab-token': '' }, BODY, SECRET).ok, false);
});

test('unsigned, or a header sent twice, is refused with a reason that never holds the secret', () => {
  const unsigned = verifyPush({ 'content-type': 'application/json' }, BODY, SECRET);
  assert.equal(unsigned, { ok: false, reason: 'unsigned (no X-Hub-Signature-256, X-Gitea-Signature or X-Gitlab-Token)' });
  const twice = verifyPush({ 'x-gitlab-token': [SECRET, SECRET] }, BODY, SECRET);
  assert.is(twice.ok, false);
  for (const v of [unsigned, twice, verifyPush({ 'x-gitlab-token': 'x' }, BODY, SECRET)]) assert.not.ok(JSON.stringify(v).includes(SECRET));
});

test('a wrong signature under one forge is not rescued by another forge header', () => {
  assert.is(verifyPush({ 'x-hub-signature-256': 'sha256=00', 'x-gitlab-token': SECRET }, BODY, SECRET).ok, false);
});

test('--listen needs HOST:PORT and $LLMGW_PUSH_SECRET, with errors that say so', () => {
  assert.equal(parsePushListen('127.0.0.1:9465'), { host: '127.0.0.1', port: 9465 });
  assert.equal(parsePushListen('[::1]:80'), { host: '::1', port: 80 });
  assert.throws(
    () => parsePushListen(':9465'),
    (e: unknown) => e instanceof UsageError && /--listen must be HOST:PORT/.test(e.message),
  );
  assert.throws(
    () => pushSecret({}),
    (e: unknown) => e instanceof UsageError && e.message.includes('$LLMGW_PUSH_SECRET'),
  );
  assert.throws(
    () => pushSecret({ LLMGW_PUSH_SECRET: '' }),
    (e: unknown) => e instanceof UsageError,
  );
  assert.is(pushSecret({ LLMGW_PUSH_SECRET: SECRET }), SECRET);
});

function post(url: string, headers: Record<string, string>, body: Buffer | string, method = 'POST'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the receiver: a signed push is 202 and one trigger; unsigned, wrongly signed, too big or not a POST start nothing', async () => {
  const pushes: string[] = [];
  const logs: string[] = [];
  const rx = await startPushReceiver({
    listen: { host: '127.0.0.1', port: 0 },
    secret: SECRET,
    onPush: (p) => pushes.push(p),
    log: (l) => logs.push(l),
    maxBody: 4096,
  });
  try {
    assert.is(await post(rx.url, {}, BODY), 401);
    assert.is(await post(rx.url, { 'x-hub-signature-256': `sha256=${hmac(BODY, 'wrong')}` }, BODY), 401);
    assert.is(await post(rx.url, { 'x-gitlab-token': 'guess' }, BODY), 401);
    assert.is(await post(rx.url, {}, '', 'GET'), 405);
    const big = Buffer.alloc(5000, 'a');
    assert.is(await post(rx.url, { 'x-gitea-signature': hmac(big) }, big), 413);
    assert.equal(pushes, [], 'nothing refused starts a tick');
    assert.is(await post(rx.url, { 'x-hub-signature-256': `sha256=${hmac(BODY)}` }, BODY), 202);
    assert.is(await post(rx.url, { 'x-gitea-signature': hmac(BODY) }, BODY), 202);
    assert.is(await post(rx.url, { 'x-gitlab-token': SECRET }, BODY), 202);
    assert.equal(pushes, ['github', 'gitea', 'gitlab']);
    assert.ok(logs.some((l) => l.includes('refused')));
    assert.not.ok(logs.join('\n').includes(SECRET), 'the secret is never logged');
  } finally {
    await rx.close();
  }
});

test.run();
