// cluster.yaml's notify.webhooks (docs/config.md, docs/notifications.md): every
// header llmgw or HTTP owns is refused whatever its case; a header value may
// hold visible characters, spaces and tabs only; an unset ${VAR} leaves a
// header, a secret or the URL out rather than send half of it; the events list
// keeps its strings; no webhooks at all is a warning.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../src/errors.js';
import { CLUSTER, ONE_GPU_MODELS, parsePair } from '../fixtures/index.js';

function load(notify: string, env: Record<string, string> = {}) {
  const r = parsePair(CLUSTER + notify, ONE_GPU_MODELS, { env: { HOME: '/h', ...env } });
  return { r, errors: r.ok ? [] : r.errors.map(formatProblem), warnings: r.warnings.map(formatProblem) };
}

const RESERVED = [
  'Content-Type',
  'Content-Length',
  'Content-Encoding',
  'Transfer-Encoding',
  'Connection',
  'Host',
  'Keep-Alive',
  'Upgrade',
  'TE',
  'Trailer',
  'Expect',
  'X-Llmgw-Signature-256',
  'Webhook-Id',
  'Webhook-Timestamp',
  'Webhook-Signature',
];

test('every header llmgw sets or HTTP owns is refused at its key, in any case', () => {
  for (const name of RESERVED) {
    for (const spelled of [name, name.toLowerCase(), name.toUpperCase()]) {
      const { errors } = load(`notify:\n  webhooks:\n    - url: https://h.example/x\n      headers:\n        ${spelled}: "v"\n`);
      assert.equal(
        errors,
        [`cluster.yaml:15:9: notify.webhooks[0].headers.${spelled}: header '${spelled}' is set by llmgw (or by HTTP) and cannot be configured`],
        spelled,
      );
    }
  }
});

test('a header of its own is kept with its name as written; the hook carries only what was given', () => {
  const { r, errors, warnings } = load(
    'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-Team: ops, Authorization: "Bearer t" }\n    - url: http://h.example/y\n',
  );
  assert.equal([errors, warnings], [[], []]);
  if (r.ok)
    assert.equal(r.config.cluster.notify.webhooks, [
      { url: 'https://h.example/x', headers: { 'X-Team': 'ops', Authorization: 'Bearer t' } },
      { url: 'http://h.example/y' },
    ]);
});

test('a header value with a control character is refused (NUL, backspace, LF, CR, ESC, US, DEL); a tab or a space is kept', () => {
  for (const bad of ['\\0', '\\b', '\\n', '\\r', '\\e', '\\x1f', '\\x7f']) {
    const { errors } = load(`notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-A: "a${bad}b" }\n`);
    assert.equal(errors, ['cluster.yaml:14:23: notify.webhooks[0].headers.X-A: must not contain line breaks or control characters'], bad);
  }
  const { r, errors } = load('notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-A: "a\\tb c~" }\n');
  assert.equal(errors, []);
  if (r.ok) assert.equal(r.config.cluster.notify.webhooks[0]!.headers, { 'X-A': 'a\tb c~' });
});

test('a header with an unset ${VAR} is left out (not sent half); the set ones stay, and no headers at all is no headers key', () => {
  const one = load('notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-A: "${NOPE}", X-B: "k-${SET}" }\n', { SET: 'v' });
  assert.ok(one.r.ok);
  assert.equal(one.r.config.cluster.notify.webhooks[0], { url: 'https://h.example/x', headers: { 'X-B': 'k-v' } });
  const none = load('notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-A: "${NOPE}" }\n');
  assert.ok(none.r.ok);
  assert.equal(none.r.config.cluster.notify.webhooks[0], { url: 'https://h.example/x' });
  assert.equal(none.warnings, ['cluster.yaml:14:23: notify.webhooks[0].headers.X-A: environment variable NOPE is not set']);
});

test('a secret is kept when given in full; an empty one, or one with an unset ${VAR}, is no secret', () => {
  const hooks = (notify: string, env: Record<string, string> = {}) => {
    const { r } = load(notify, env);
    return r.ok ? r.config.cluster.notify.webhooks : null;
  };
  assert.equal(hooks('notify:\n  webhooks:\n    - { url: "https://h.example/x", secret: "s3" }\n'), [{ url: 'https://h.example/x', secret: 's3' }]);
  assert.equal(hooks('notify:\n  webhooks:\n    - { url: "https://h.example/x", secret: "a-${S}" }\n', { S: 'b' }), [
    { url: 'https://h.example/x', secret: 'a-b' },
  ]);
  assert.equal(hooks('notify:\n  webhooks:\n    - { url: "https://h.example/x", secret: "a-${NOPE}" }\n'), [{ url: 'https://h.example/x' }]);
});

test('a URL must be http:// or https://; one from an unset ${VAR} is the empty URL, with no URL error', () => {
  assert.equal(load('notify:\n  webhooks:\n    - url: ftp://h.example/x\n').errors, [
    'cluster.yaml:13:12: notify.webhooks[0].url: must be an http:// or https:// URL',
  ]);
  const unset = load('notify:\n  webhooks:\n    - url: "${NOPE}"\n');
  assert.equal(unset.errors, []);
  if (unset.r.ok) assert.equal(unset.r.config.cluster.notify.webhooks, [{ url: '', urlVars: ['$NOPE'] }]);
});

test('a hook lists the events it wants; without a list it has no events key (all events)', () => {
  const { r } = load('notify:\n  webhooks:\n    - { url: "https://h.example/x", events: [model.down, node.lost] }\n    - { url: "https://h.example/y" }\n');
  assert.ok(r.ok);
  assert.equal(r.config.cluster.notify.webhooks, [{ url: 'https://h.example/x', events: ['model.down', 'node.lost'] }, { url: 'https://h.example/y' }]);
});

test('no webhooks at all is a warning naming what then notifies nobody; one webhook is no warning', () => {
  const none = load('');
  assert.equal(
    none.warnings.filter((w) => w.includes('webhooks')),
    ['cluster.yaml:1:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody'],
  );
  assert.equal(load('notify:\n  webhooks:\n    - url: https://h.example/x\n').warnings, []);
});

test.run();
