// docs/security.md: what a PR can make the config loader do. Each attack of
// issue #11 point 3 is refused with one line that names the variable and
// never its value; ${VAR} is read only in the webhooks and ssh.identityFile.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type LoadOptions } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { CLUSTER, ONE_GPU_MODELS } from '../fixtures/index.js';

const SECRET_URL = 'https://hooks.example/T0/B0/very-secret-token';
const ENV = { HOME: '/home/op', LLMGW_WEBHOOK_URL: SECRET_URL, SECRET: 'hunter2-secret', HOOK_TOKEN: 'tok-abc-secret' };

function load(cluster: string, models = ONE_GPU_MODELS, opts: LoadOptions = {}) {
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } }, { env: ENV, ...opts });
  const lines = [...(r.ok ? [] : r.errors), ...r.warnings].map(formatProblem);
  return { r, errors: r.ok ? [] : r.errors.map(formatProblem), lines, all: JSON.stringify(r) };
}

function noSecretIn(text: string): void {
  for (const v of ['very-secret-token', 'hunter2', 'tok-abc']) assert.not.match(text, v, `leaked ${v}`);
}

for (const strictEnv of [false, true]) {
  test(`a node name built from \${VAR} is one error naming the variable, never its value (strictEnv ${strictEnv})`, () => {
    const { errors, lines } = load(CLUSTER.replace('gpu-a[01-02]', '"gpu-b${LLMGW_WEBHOOK_URL}"'), ONE_GPU_MODELS, { strictEnv });
    assert.equal(errors, [
      'cluster.yaml:6:11: nodes[0].name: ${LLMGW_WEBHOOK_URL} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
    ]);
    noSecretIn(lines.join('\n'));
  });

  test(`a host built from \${SECRET} is refused: the secret never reaches a host name, DNS or a message (strictEnv ${strictEnv})`, () => {
    const { r, errors, all } = load(CLUSTER.replace('    fabric: ib-a', '    host: "x.${SECRET}.invalid"\n    fabric: ib-a'), ONE_GPU_MODELS, { strictEnv });
    assert.not.ok(r.ok);
    assert.equal(errors, [
      'cluster.yaml:7:11: nodes[0].host: ${SECRET} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
    ]);
    noSecretIn(all);
  });
}

test('${VAR} in models.yaml is an error too: no model arg is read from the environment', () => {
  const { errors } = load(CLUSTER, ONE_GPU_MODELS.replace('gpus: 1 }', 'gpus: 1, args: [--api-key, "${OPENAI_API_KEY}"] }'));
  assert.equal(errors, [
    'models.yaml:4:73: models[0].args[1]: ${OPENAI_API_KEY} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
  ]);
});

test('a ${VAR} in a key is an error at the key', () => {
  const { errors } = load(CLUSTER + 'gpuClasses:\n  "${CLASS}": "NVIDIA*"\n');
  assert.equal(errors, [
    'cluster.yaml:12:3: gpuClasses["${CLASS}"]: ${CLASS} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
  ]);
});

test('an anchor under x- may hold ${VAR}; it is refused where an alias uses it outside the allowed places', () => {
  const cluster = CLUSTER.replace('nodes:', 'x-host: &host "${SECRET}.example"\nnodes:').replace('    fabric: ib-a', '    host: *host\n    fabric: ib-a');
  const { errors, all } = load(cluster);
  assert.equal(errors, [
    'cluster.yaml:8:11: nodes[0].host: ${SECRET} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
  ]);
  noSecretIn(all);
});

test('url, secret, header values and identityFile are substituted, whole or in part', () => {
  const cluster =
    CLUSTER.replace('name: test', 'name: test\nssh:\n  identityFile: ${KEY_DIR}/id_ed25519') +
    'notify:\n  webhooks:\n    - url: ${LLMGW_WEBHOOK_URL}\n      secret: ${SECRET}\n      headers:\n        Authorization: "Bearer ${HOOK_TOKEN}"\n        X-Team: ml\n';
  const { r } = load(cluster, ONE_GPU_MODELS, { env: { ...ENV, KEY_DIR: '/etc/llmgw' } });
  assert.ok(r.ok);
  assert.is(r.config.cluster.ssh.identityFile, '/etc/llmgw/id_ed25519');
  assert.equal(r.config.cluster.notify.webhooks, [
    { url: SECRET_URL, urlVars: ['$LLMGW_WEBHOOK_URL'], secret: 'hunter2-secret', headers: { Authorization: 'Bearer tok-abc-secret', 'X-Team': 'ml' } },
  ]);
});

test('an unset variable in a header leaves the header out and warns, naming the variable', () => {
  const cluster = CLUSTER + 'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { Authorization: "Bearer ${NOPE}" }\n';
  const { r } = load(cluster);
  assert.ok(r.ok);
  assert.equal(r.config.cluster.notify.webhooks, [{ url: 'https://h.example/x' }]);
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:14:33: notify.webhooks[0].headers.Authorization: environment variable NOPE is not set']);
});

test('a URL with an unset ${VAR} in it is no URL at all, never half of one', () => {
  const { r } = load(CLUSTER + 'notify:\n  webhooks:\n    - url: https://hooks.example/${NOPE}\n');
  assert.ok(r.ok);
  assert.is(r.config.cluster.notify.webhooks[0]!.url, '');
});

test('a header value from the environment with a line break is refused, naming the variable, not the value', () => {
  const cluster = CLUSTER + 'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { X-Token: "${INJECT}" }\n';
  const { errors, all } = load(cluster, ONE_GPU_MODELS, { env: { ...ENV, INJECT: 'abc-secret\r\nX-Evil: 1' } });
  assert.equal(errors, [
    'cluster.yaml:14:27: notify.webhooks[0].headers.X-Token: must not contain line breaks or control characters (after substituting ${INJECT})',
  ]);
  assert.not.match(all, 'abc-secret');
});

test('headers llmgw sets itself, and a header given twice in other case, are refused at the key', () => {
  const cluster =
    CLUSTER +
    'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers:\n        Content-Type: text/plain\n        webhook-signature: v1,forged\n        X-A: "1"\n        x-a: "2"\n';
  assert.equal(load(cluster).errors, [
    "cluster.yaml:15:9: notify.webhooks[0].headers.Content-Type: header 'Content-Type' is set by llmgw (or by HTTP) and cannot be configured",
    "cluster.yaml:16:9: notify.webhooks[0].headers.webhook-signature: header 'webhook-signature' is set by llmgw (or by HTTP) and cannot be configured",
    "cluster.yaml:18:9: notify.webhooks[0].headers.x-a: header 'x-a' is already set as 'X-A' (header names ignore case)",
  ]);
});

test('a header name must be an HTTP token', () => {
  const cluster = CLUSTER + 'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { "Bad Name": x }\n';
  assert.equal(load(cluster).errors, [
    "cluster.yaml:14:18: notify.webhooks[0].headers[\"Bad Name\"]: name 'Bad Name' must be an HTTP header name: letters, digits and !#$%&'*+.^_`|~-",
  ]);
});

test('a ${…} that names no variable is an error in an allowed place too', () => {
  assert.equal(load(CLUSTER + 'notify:\n  webhooks:\n    - url: "https://h.example/${1BAD}"\n').errors, [
    'cluster.yaml:13:12: notify.webhooks[0].url: a ${…} must name a variable: letters, digits and _, not starting with a digit',
  ]);
});

const repo = mkdtempSync(join(tmpdir(), 'llmgw-trust-'));
mkdirSync(join(repo, 'cfg', 'keys'), { recursive: true });
mkdirSync(join(repo, 'home'));
symlinkSync(join(repo, 'cfg', 'keys'), join(repo, 'home', 'keys'));
const inRepo = (ssh: string, env: Record<string, string> = {}) =>
  load(CLUSTER.replace('name: test', `name: test\nssh:\n${ssh}`), ONE_GPU_MODELS, {
    repoDir: join(repo, 'cfg'),
    env: { ...ENV, HOME: join(repo, 'home'), ...env },
  }).errors;

test('knownHosts or identityFile inside the config repo is an error: a PR would choose the trusted host keys', () => {
  assert.equal(inRepo(`  knownHosts: ${join(repo, 'cfg', 'known_hosts')}`), [
    'cluster.yaml:5:15: ssh.knownHosts: must be outside the config repo: a file the repo holds is a file a pull request can change',
  ]);
  assert.equal(inRepo(`  identityFile: ${join(repo, 'cfg', 'x', '..', 'keys', 'id')}`), [
    'cluster.yaml:5:17: ssh.identityFile: must be outside the config repo: a file the repo holds is a file a pull request can change',
  ]);
});

test('a ~/ path that leads into the repo through a symbolic link is inside it too', () => {
  assert.equal(inRepo('  knownHosts: ~/keys/known_hosts'), [
    'cluster.yaml:5:15: ssh.knownHosts: must be outside the config repo: a file the repo holds is a file a pull request can change',
  ]);
});

test('an identityFile from ${VAR} inside the repo names the variable', () => {
  assert.equal(inRepo('  identityFile: ${LLMGW_KEY}', { LLMGW_KEY: join(repo, 'cfg', 'id') }), [
    'cluster.yaml:5:17: ssh.identityFile: must be outside the config repo: a file the repo holds is a file a pull request can change (after substituting ${LLMGW_KEY})',
  ]);
});

test('paths beside the repo, and names that merely start with .., are outside it', () => {
  assert.equal(inRepo(`  knownHosts: ${join(repo, 'cfg-other', 'known_hosts')}\n  identityFile: ~/.ssh/id`), []);
});

test('knownHosts and identityFile must be absolute or ~/: a relative path would be read from wherever llmgw runs', () => {
  assert.equal(inRepo('  knownHosts: known_hosts\n  identityFile: "~"'), [
    'cluster.yaml:5:15: ssh.knownHosts: must be an absolute path or start with ~/',
    'cluster.yaml:6:17: ssh.identityFile: must be an absolute path or start with ~/',
  ]);
});

test.after(() => rmSync(repo, { recursive: true, force: true }));

test.run();
