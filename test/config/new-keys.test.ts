// The second edition's config surface (docs/config.md): each new key's default,
// how cluster.yaml's `defaults:` and a model's own value combine, and each error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig, type LoadOptions } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { defined } from '../helpers/defined.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - { name: "n[1-2]", fabric: ib-a }
engines:
  vllm: { command: [vllm, serve] }
`;
const MODEL = '  - { name: m, weights: org/m, engine: vllm, gpus: 1 }\n';
const HEAD = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n';

function load(cluster: string, models: string, opts: LoadOptions = {}) {
  return parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } }, { env: { HOME: '/h' }, ...opts });
}

function ok(cluster: string, models: string) {
  const r = load(cluster, models);
  if (!r.ok) throw new Error(r.errors.map(formatProblem).join('\n'));
  return r.config;
}

function errors(cluster: string, models: string): string[] {
  const r = load(cluster, models);
  return r.ok ? [] : r.errors.map(formatProblem);
}

/** models.yaml with one block-style model whose extra lines are `extra`. */
function model(extra: string): string {
  return `${HEAD}  - name: m\n    weights: org/m\n    engine: vllm\n    gpus: 1\n${extra}`;
}

test('without the new keys: drain 10m, stop grace 30s, no check, no rollout, git timeout 60s', () => {
  const c = ok(CLUSTER, HEAD + MODEL);
  assert.equal(
    [defined(c.models[0]).drainTimeoutMs, defined(c.models[0]).stopGraceMs, defined(c.models[0]).check, defined(c.models[0]).rollout],
    [600_000, 30_000, null, null],
  );
  assert.equal(c.cluster.git, { timeoutMs: 60_000 });
});

test("cluster.yaml defaults apply to every model; a model's own value wins", () => {
  const cluster = `${CLUSTER}defaults:\n  drainTimeout: 5m\n  stopGrace: 45s\n  check: { prompt: "Say ok.", expect: ok }\ngit: { timeout: 2m }\n`;
  const models = `${HEAD}${MODEL}${model('    drainTimeout: 20m\n    stopGrace: 0s\n    check: { prompt: "Reply with the word ready.", expect: "(?i)ready", timeout: 90s }\n').slice(HEAD.length).replace('name: m', 'name: own')}`;
  const c = ok(cluster, models);
  assert.equal(c.cluster.git, { timeoutMs: 120_000 });
  const [inherit, own] = [defined(c.models[0]), defined(c.models[1])];
  assert.equal([inherit.drainTimeoutMs, inherit.stopGraceMs], [300_000, 45_000]);
  assert.equal(inherit.check, { prompt: 'Say ok.', expect: { source: 'ok', flags: '' }, timeoutMs: 60_000 });
  assert.equal([own.drainTimeoutMs, own.stopGraceMs], [1_200_000, 0]);
  assert.equal(own.check, { prompt: 'Reply with the word ready.', expect: { source: 'ready', flags: 'i' }, timeoutMs: 90_000 });
});

test('check: false turns a default check off for one model (an embedding model cannot chat)', () => {
  const cluster = `${CLUSTER}defaults:\n  check: { prompt: "Say ok.", expect: ok }\n`;
  assert.is(defined(ok(cluster, model('    check: false\n')).models[0]).check, null);
});

test('rollout: {} takes every default: one canary, hold 10m, at most 5% errors', () => {
  assert.equal(defined(ok(CLUSTER, model('    rollout: {}\n')).models[0]).rollout, { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 });
  assert.equal(defined(ok(CLUSTER, model('    rollout: { canary: 3, hold: 1h, maxErrorRate: 0 }\n')).models[0]).rollout, {
    canary: 3,
    holdMs: 3_600_000,
    maxErrorRate: 0,
  });
});

const ERRORS: [rule: string, extra: string, expected: string][] = [
  ['canary is at least 1', '    rollout: { canary: 0 }\n', 'models.yaml:8:24: models[0].rollout.canary: must be >= 1'],
  ['canary is a whole number', '    rollout: { canary: 1.5 }\n', 'models.yaml:8:24: models[0].rollout.canary: must be integer'],
  ['maxErrorRate is a share, 0..1', '    rollout: { maxErrorRate: 1.5 }\n', 'models.yaml:8:30: models[0].rollout.maxErrorRate: must be <= 1'],
  ['hold is a duration', '    rollout: { hold: soon }\n', 'models.yaml:8:22: models[0].rollout.hold: must be a duration such as 90s, 10m, 6h, 2d or 1h30m'],
  [
    'a misspelt rollout key suggests the key of that level',
    '    rollout: { canery: 2 }\n',
    "models.yaml:8:16: models[0].rollout.canery: unknown key 'canery' (did you mean 'canary'?)",
  ],
  ['a check needs expect', '    check: { prompt: hi }\n', "models.yaml:8:12: models[0].check: missing required key 'expect'"],
  [
    'a misspelt check key suggests the key of that level',
    '    check: { prompt: hi, expect: x, timeot: 5s }\n',
    "models.yaml:8:37: models[0].check.timeot: unknown key 'timeot' (did you mean 'timeout'?)",
  ],
  [
    'check.expect must compile',
    '    check: { prompt: hi, expect: "(ready" }\n',
    'models.yaml:8:34: models[0].check.expect: is not a valid regular expression: Unterminated group',
  ],
  [
    'only a leading (?i) is a flag',
    '    check: { prompt: hi, expect: "(?s)ready" }\n',
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ],
  [
    '(?i) twice is not two flags',
    '    check: { prompt: hi, expect: "(?i)(?m)ready" }\n',
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ],
  [
    'a check timeout of 0s could never pass',
    '    check: { prompt: hi, expect: x, timeout: 0s }\n',
    'models.yaml:8:46: models[0].check.timeout: must be longer than 0s',
  ],
  ['check: true means nothing', '    check: true\n', 'models.yaml:8:12: models[0].check: must be a mapping (prompt, expect, timeout) or false'],
  ['a drain timeout a timer cannot count is an error', '    drainTimeout: 30d\n', 'models.yaml:8:19: models[0].drainTimeout: must be at most 24d'],
  ['stopGrace is a duration', '    stopGrace: 30\n', 'models.yaml:8:16: models[0].stopGrace: must be string'],
];
for (const [rule, extra, expected] of ERRORS) {
  test(rule, () => assert.equal(errors(CLUSTER, model(extra)), [expected]));
}

test('cluster.yaml defaults and git are checked the same way', () => {
  assert.equal(errors(`${CLUSTER}defaults:\n  drainTimeout: 25d\n  check: { prompt: x, expect: "[" }\ngit: { timeout: 0s }\n`, HEAD + MODEL), [
    'cluster.yaml:10:17: defaults.drainTimeout: must be at most 24d',
    'cluster.yaml:11:31: defaults.check.expect: is not a valid regular expression: Unterminated character class',
    'cluster.yaml:12:17: git.timeout: must be longer than 0s',
  ]);
  assert.equal(errors(`${CLUSTER}defaults: { stopgrace: 1s }\n`, HEAD + MODEL), [
    "cluster.yaml:9:13: defaults.stopgrace: unknown key 'stopgrace' (did you mean 'stopGrace'?)",
  ]);
});

test('a misspelt key under a node suggests the node key (fabric), not the top-level fabrics', () => {
  assert.equal(errors(CLUSTER.replace('fabric: ib-a }', 'fabric: ib-a, fabirc: ib-a }'), HEAD + MODEL), [
    "cluster.yaml:6:37: nodes[0].fabirc: unknown key 'fabirc' (did you mean 'fabric'?)",
  ]);
});

const STRICT = CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: [--max-model-len, "[0-9]*", "--dtype=*"] }');

test('allowArgs: args that match a glob pass, as written (placeholders are not replaced first)', () => {
  const c = ok(STRICT, model('    args: [--max-model-len, "32768", --dtype=bfloat16]\n'));
  assert.equal(defined(c.models[0]).args, ['--max-model-len', '32768', '--dtype=bfloat16']);
  assert.equal(defined(c.cluster.engines.vllm).allowArgs, ['--max-model-len', '[0-9]*', '--dtype=*']);
});

test('allowArgs: an arg no glob matches is an error naming the model, the arg and the engine', () => {
  assert.equal(errors(STRICT, model('    args: [--max-model-len, "32768", --trust-remote-code, --tokenizer, attacker/x]\n')), [
    "models.yaml:8:38: models[0].args[2]: model 'm': arg '--trust-remote-code' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
    "models.yaml:8:59: models[0].args[3]: model 'm': arg '--tokenizer' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
    "models.yaml:8:72: models[0].args[4]: model 'm': arg 'attacker/x' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
  assert.equal(errors(STRICT, model('    args: ["{port}"]\n')), [
    "models.yaml:8:12: models[0].args[0]: model 'm': arg '{port}' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
});

test('allowArgs: [] allows no args at all; an engine without allowArgs allows any', () => {
  const none = CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: [] }');
  assert.equal(errors(none, model('    args: [--x]\n')), [
    "models.yaml:8:12: models[0].args[0]: model 'm': arg '--x' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
  assert.equal(errors(CLUSTER, model('    args: [--anything, goes]\n')), []);
});

test('a malformed allowArgs glob is an error at the glob', () => {
  assert.equal(errors(CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: ["[0-9"] }'), HEAD + MODEL), [
    'cluster.yaml:8:47: engines.vllm.allowArgs[0]: glob has a [ with no closing ]',
  ]);
});

test('advise: each engine without allowArgs is one warning, however many models use it', () => {
  const cluster = CLUSTER.replace(
    'vllm: { command: [vllm, serve] }',
    'vllm: { command: [vllm, serve] }\n  sglang: { command: [sglang] }\n  strict: { command: [s], allowArgs: [] }',
  );
  const models = HEAD + MODEL + MODEL.replace('name: m', 'name: m2') + MODEL.replace('name: m', 'name: m3').replace('vllm', 'sglang');
  const r = load(cluster, models, { advise: true });
  assert.equal(r.warnings.map(formatProblem), [
    'cluster.yaml:1:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody',
    'cluster.yaml:8:3: engines.vllm: no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)',
    'cluster.yaml:9:3: engines.sglang: no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)',
  ]);
  assert.equal(load(cluster, models).warnings.length, 1, 'without advise (plan, status, reconcile) only the webhook warning');
});

test('advise: a gpuClass no GPU of the snapshot has is a warning listing the classes seen, with a suggestion', () => {
  const models = model('    gpuClass: H10O\n') + MODEL.replace('name: m', 'name: ok').replace('gpus: 1', 'gpus: 1, gpuClass: H100');
  const observedGpus = { file: '.llmgw/observed.json', products: ['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB'] };
  const r = load(CLUSTER, models, { advise: true, observedGpus });
  assert.ok(r.ok, 'a warning, not an error: what the fleet holds is no validation matter');
  assert.equal(
    r.warnings.map(formatProblem).filter((w) => w.includes('gpuClass')),
    ["models.yaml:8:15: models[0].gpuClass: no GPU in .llmgw/observed.json has class 'H10O' (did you mean 'H100'?); classes seen: A100, H100"],
  );
  const none = load(CLUSTER, models, { advise: true, observedGpus: null });
  assert.equal(
    none.warnings.map(formatProblem).filter((w) => w.includes('gpuClass')),
    [],
    'no snapshot: nothing to say',
  );
});

test.run();
