// src/config/resolve-lifecycle.ts (docs/config.md): drain timeout, stop grace,
// check and rollout, each key's default, how cluster.yaml's `defaults:` and a
// model's own value combine, and each error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLUSTER, MODELS, ONE_GPU_MODELS, TINY_CLUSTER, parsePair, problemsOf, validConfig } from '../fixtures/index.js';

const MODEL = '  - { name: m, weights: org/m, engine: vllm, gpus: 1 }\n';
const HEAD = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n';

/** models.yaml with one block-style model whose extra lines are `extra`. */
const model = (extra: string) => MODELS + extra;

test('without the new keys: drain 10m, stop grace 30s, no check, no rollout, git timeout 60s', () => {
  const c = validConfig(TINY_CLUSTER, ONE_GPU_MODELS);
  assert.equal([c.models[0]!.drainTimeoutMs, c.models[0]!.stopGraceMs, c.models[0]!.check, c.models[0]!.rollout], [600_000, 30_000, null, null]);
  assert.equal(c.cluster.git, { timeoutMs: 60_000 });
});

test("cluster.yaml defaults apply to every model; a model's own value wins", () => {
  const cluster = `${TINY_CLUSTER}defaults:\n  drainTimeout: 5m\n  stopGrace: 45s\n  check: { prompt: "Say ok.", expect: ok }\ngit: { timeout: 2m }\n`;
  const models = `${HEAD}${MODEL}${model('    drainTimeout: 20m\n    stopGrace: 0s\n    check: { prompt: "Reply with the word ready.", expect: "(?i)ready", timeout: 90s }\n').slice(HEAD.length).replace('name: m', 'name: own')}`;
  const c = validConfig(cluster, models);
  assert.equal(c.cluster.git, { timeoutMs: 120_000 });
  const inherit = c.models[0]!;
  const own = c.models[1]!;
  assert.equal([inherit.drainTimeoutMs, inherit.stopGraceMs], [300_000, 45_000]);
  assert.equal(inherit.check, { prompt: 'Say ok.', expect: { source: 'ok', flags: '' }, timeoutMs: 60_000 });
  assert.equal([own.drainTimeoutMs, own.stopGraceMs], [1_200_000, 0]);
  assert.equal(own.check, { prompt: 'Reply with the word ready.', expect: { source: 'ready', flags: 'i' }, timeoutMs: 90_000 });
});

test('check: false turns a default check off for one model (an embedding model cannot chat)', () => {
  const cluster = `${TINY_CLUSTER}defaults:\n  check: { prompt: "Say ok.", expect: ok }\n`;
  assert.is(validConfig(cluster, model('    check: false\n')).models[0]!.check, null);
});

test('rollout: {} takes every default: one canary, hold 10m, at most 5% errors', () => {
  assert.equal(validConfig(TINY_CLUSTER, model('    rollout: {}\n')).models[0]!.rollout, { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 });
  assert.equal(validConfig(TINY_CLUSTER, model('    rollout: { canary: 3, hold: 1h, maxErrorRate: 0 }\n')).models[0]!.rollout, {
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
  test(rule, () => assert.equal(problemsOf(TINY_CLUSTER, model(extra)), [expected]));
}

test('cluster.yaml defaults and git are checked the same way', () => {
  assert.equal(problemsOf(`${TINY_CLUSTER}defaults:\n  drainTimeout: 25d\n  check: { prompt: x, expect: "[" }\ngit: { timeout: 0s }\n`, ONE_GPU_MODELS), [
    'cluster.yaml:10:17: defaults.drainTimeout: must be at most 24d',
    'cluster.yaml:11:31: defaults.check.expect: is not a valid regular expression: Unterminated character class',
    'cluster.yaml:12:17: git.timeout: must be longer than 0s',
  ]);
  assert.equal(problemsOf(`${TINY_CLUSTER}defaults: { stopgrace: 1s }\n`, ONE_GPU_MODELS), [
    "cluster.yaml:9:13: defaults.stopgrace: unknown key 'stopgrace' (did you mean 'stopGrace'?)",
  ]);
});

test('check.expect: a flag group of several letters is refused as a flag; a (?i) not at the start is a bad regular expression', () => {
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "(?im)ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ]);
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "(?-i)ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ]);
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "ready(?i)" }\n'), [
    'models.yaml:8:34: models[0].check.expect: is not a valid regular expression: Invalid group',
  ]);
});

test("a bad expect after (?i) says only why, not V8's prefix with the /source/i it compiled", () => {
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "(?i)(ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: is not a valid regular expression: Unterminated group',
  ]);
});

test('check.expect that a node cannot match in linear time (backreference, lookaround) is one line naming file, path and cause', () => {
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "(re)ady\\\\1" }\n'), [
    'models.yaml:8:34: models[0].check.expect: a backreference (\\1) cannot be matched in linear time',
  ]);
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "(?i)ready(?=\\\\.)" }\n'), [
    'models.yaml:8:34: models[0].check.expect: lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time',
  ]);
  assert.equal(problemsOf(CLUSTER + 'defaults:\n  check: { prompt: hi, expect: "(?<!un)ready" }\n', MODELS), [
    'cluster.yaml:12:32: defaults.check.expect: lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time',
  ]);
  // Nested quantifiers are what backtracking engines choke on; RE2 matches them in linear time, so they are fine.
  assert.equal(problemsOf(CLUSTER, MODELS + '    check: { prompt: hi, expect: "^(a+)+$" }\n'), []);
});

test('a stop grace or a rollout hold too long for a timer is reported at its own key, in defaults and in a model', () => {
  assert.equal(problemsOf(CLUSTER + 'defaults:\n  stopGrace: 30d\n', MODELS), ['cluster.yaml:12:14: defaults.stopGrace: must be at most 24d']);
  assert.equal(problemsOf(CLUSTER, MODELS + '    stopGrace: 30d\n'), ['models.yaml:8:16: models[0].stopGrace: must be at most 24d']);
  assert.equal(problemsOf(CLUSTER, MODELS + '    rollout: { hold: 30d }\n'), ['models.yaml:8:22: models[0].rollout.hold: must be at most 24d']);
  const r = parsePair(CLUSTER, MODELS + '    stopGrace: 24d\n    rollout: { hold: 0s }\n');
  assert.ok(r.ok);
  assert.equal([r.config.models[0]!.stopGraceMs, r.config.models[0]!.rollout!.holdMs], [24 * 86_400_000, 0]);
});

test('defaults without a check give models no check; defaults with an empty check, or a model with one, is one problem, not an internal error', () => {
  const r = parsePair(CLUSTER + 'defaults:\n  drainTimeout: 5m\n', MODELS);
  assert.ok(r.ok);
  assert.equal([r.config.models[0]!.check, r.config.models[0]!.drainTimeoutMs], [null, 300_000]);
  assert.equal(problemsOf(CLUSTER + 'defaults:\n  check:\n', MODELS), ['cluster.yaml:12:3: defaults.check: must be object']);
  assert.equal(problemsOf(CLUSTER, MODELS + '    check:\n'), ['models.yaml:8:5: models[0].check: must be a mapping (prompt, expect, timeout) or false']);
});

test.run();
