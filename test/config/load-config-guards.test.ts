// parseConfig's own rules beyond each check: values from ${VAR} are checked
// against the schema once substituted, models.yaml reads no ${VAR} anywhere,
// the config carries the stop defaults, problems come in file order, a bug is
// one line rather than a crash, and withRepoProblems adds each problem once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig, withRepoProblems, type LoadOptions } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import type { ConfigProblem } from '../../src/types/config.js';
import { TINY_CLUSTER as CLUSTER, TINY_MODELS as MODELS } from '../fixtures/index.js';

/** Both files through parseConfig; `opts.env` adds to HOME and USER. */
function load(cluster: string, models = MODELS, opts: LoadOptions = {}) {
  return parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
    { ...opts, env: { HOME: '/h', USER: 'u', ...opts.env } },
  );
}
const errorsOf = (r: ReturnType<typeof load>) => (r.ok ? [] : r.errors.map(formatProblem));

test('a ${VAR} set to the empty string is checked as the empty value it gives, naming the variable', () => {
  const key = load(CLUSTER + 'ssh:\n  identityFile: ${KEY}\n', MODELS, { env: { KEY: '' } });
  assert.equal(errorsOf(key), [
    'cluster.yaml:10:17: ssh.identityFile: must NOT have fewer than 1 characters (after substituting ${KEY})',
    'cluster.yaml:10:17: ssh.identityFile: must be an absolute path or start with ~/ (after substituting ${KEY})',
  ]);
  const hook = load(CLUSTER + 'notify:\n  webhooks:\n    - url: ${HOOK}\n      secret: ${SECRET}\n', MODELS, { env: { HOOK: '', SECRET: '' } });
  assert.equal(errorsOf(hook), [
    'cluster.yaml:11:12: notify.webhooks[0].url: must NOT have fewer than 1 characters (after substituting ${HOOK})',
    'cluster.yaml:12:15: notify.webhooks[0].secret: must NOT have fewer than 1 characters (after substituting ${SECRET})',
  ]);
});

test('a problem names a ${VAR} only for the value that came from it: header "a~b" and "c/d" are not "ab" and "cd"', () => {
  const cluster = CLUSTER + 'notify:\n  webhooks:\n    - url: https://h.example/x\n      headers: { "a~b": "${V}", "c/d": "${V}", ab: 5, cd: 6 }\n';
  assert.equal(errorsOf(load(cluster, MODELS, { env: { V: 'v' } })), [
    "cluster.yaml:12:33: notify.webhooks[0].headers[\"c/d\"]: name 'c/d' must be an HTTP header name: letters, digits and !#$%&'*+.^_`|~-",
    'cluster.yaml:12:52: notify.webhooks[0].headers.ab: must be string',
    'cluster.yaml:12:59: notify.webhooks[0].headers.cd: must be string',
  ]);
});

test('models.yaml reads no ${VAR}, not even at a path that is a secret place in cluster.yaml', () => {
  assert.equal(errorsOf(load(CLUSTER, MODELS + 'ssh:\n  identityFile: ${KEY}\n', { env: { KEY: '/k' } })), [
    "models.yaml:5:1: ssh: unknown key 'ssh'",
    'models.yaml:6:17: ssh.identityFile: ${KEY} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
  ]);
});

test('the loaded cluster carries the stop defaults models fall back to: built-in, or as cluster.yaml sets them', () => {
  const built = load(CLUSTER);
  assert.ok(built.ok);
  assert.equal(built.config.cluster.stopDefaults, { drainTimeoutMs: 600_000, stopGraceMs: 30_000 });
  const set = load(CLUSTER + 'defaults:\n  drainTimeout: 5m\n  stopGrace: 10s\n');
  assert.equal(errorsOf(set), []);
  if (set.ok) assert.equal(set.config.cluster.stopDefaults, { drainTimeoutMs: 300_000, stopGraceMs: 10_000 });
});

test('problems on one line come in column order', () => {
  const models = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { nodes: x, replicas: many, gpus: two, name: m, weights: org/m, engine: vllm }\n';
  assert.equal(errorsOf(load(CLUSTER, models)), [
    'models.yaml:4:14: models[0].nodes: must be integer',
    'models.yaml:4:27: models[0].replicas: must be integer',
    'models.yaml:4:39: models[0].gpus: must be integer',
  ]);
});

test('a failure inside a check is one line at cluster.yaml:1:1 naming it, with no warnings, never a throw to the caller', () => {
  const boom = (thrown: unknown): LoadOptions => ({
    strictEnv: () => {
      throw thrown;
    },
  });
  const cluster = CLUSTER + 'ssh:\n  identityFile: ${UNSET_KEY}\n';
  assert.equal(load(cluster, MODELS, boom(new Error('strictEnv broke'))), {
    ok: false,
    errors: [{ file: 'cluster.yaml', line: 1, col: 1, path: '', message: 'internal error while loading the config: strictEnv broke' }],
    warnings: [],
  });
  const r = load(cluster, MODELS, boom('plain \u001b[31mstring'));
  assert.equal(errorsOf(r), ['cluster.yaml:1:1: internal error while loading the config: plain \\x1b[31mstring']);
});

const at = (file: string, message: string): ConfigProblem => ({ file, line: 1, col: 1, path: '', message });

test('withRepoProblems: each problem beside the YAML files is added once, after the errors already found, and the result is invalid', () => {
  const link = at('STATUS.md', 'STATUS.md is a symbolic link');
  const bad = at('cluster.yaml', 'no such file');
  const failed = { ok: false as const, errors: [bad, link], warnings: [at('cluster.yaml', 'a warning')] };
  assert.equal(withRepoProblems(failed, [link, at('.llmgw', '.llmgw is a file'), link]), {
    ok: false,
    errors: [bad, link, at('.llmgw', '.llmgw is a file')],
    warnings: [at('cluster.yaml', 'a warning')],
  });
  const good = load(CLUSTER);
  assert.equal(withRepoProblems(good, [link]), { ok: false, errors: [link], warnings: good.warnings });
  assert.is(withRepoProblems(good, []), good, 'nothing beside them: the result as it was');
});

test.run();
