// The edges of a model's lifecycle keys (docs/config.md: check, rollout,
// drainTimeout, stopGrace, cluster.yaml's defaults): which `(?…)` is a flag,
// what a bad expect says (without V8's prefix, with or without (?i)), where a
// wait too long for a timer is reported, and that empty or mistyped values are
// one clear problem each, never an internal error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - name: gpu-a[01-02]
    fabric: ib-a
engines:
  vllm:
    command: [vllm, serve]
`;
const MODEL = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - name: m\n    weights: org/m\n    engine: vllm\n    gpus: 1\n';

function load(cluster: string, models = MODEL) {
  return parseConfig({ cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } }, { env: { HOME: '/h' } });
}
const errors = (cluster: string, models = MODEL) => {
  const r = load(cluster, models);
  return r.ok ? [] : r.errors.map(formatProblem);
};

test('check.expect: a flag group of several letters is refused as a flag; a (?i) not at the start is a bad regular expression', () => {
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "(?im)ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ]);
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "(?-i)ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: only (?i), at the start, is understood as a flag (case-insensitive)',
  ]);
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "ready(?i)" }\n'), [
    'models.yaml:8:34: models[0].check.expect: is not a valid regular expression: Invalid group',
  ]);
});

test("a bad expect after (?i) says only why, not V8's prefix with the /source/i it compiled", () => {
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "(?i)(ready" }\n'), [
    'models.yaml:8:34: models[0].check.expect: is not a valid regular expression: Unterminated group',
  ]);
});

test('check.expect that a node cannot match in linear time (backreference, lookaround) is one line naming file, path and cause', () => {
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "(re)ady\\\\1" }\n'), [
    'models.yaml:8:34: models[0].check.expect: a backreference (\\1) cannot be matched in linear time',
  ]);
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "(?i)ready(?=\\\\.)" }\n'), [
    'models.yaml:8:34: models[0].check.expect: lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time',
  ]);
  assert.equal(errors(CLUSTER + 'defaults:\n  check: { prompt: hi, expect: "(?<!un)ready" }\n'), [
    'cluster.yaml:12:32: defaults.check.expect: lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time',
  ]);
  // Nested quantifiers are what backtracking engines choke on; RE2 matches them in linear time, so they are fine.
  assert.equal(errors(CLUSTER, MODEL + '    check: { prompt: hi, expect: "^(a+)+$" }\n'), []);
});

test('a stop grace or a rollout hold too long for a timer is reported at its own key, in defaults and in a model', () => {
  assert.equal(errors(CLUSTER + 'defaults:\n  stopGrace: 30d\n'), ['cluster.yaml:12:14: defaults.stopGrace: must be at most 24d']);
  assert.equal(errors(CLUSTER, MODEL + '    stopGrace: 30d\n'), ['models.yaml:8:16: models[0].stopGrace: must be at most 24d']);
  assert.equal(errors(CLUSTER, MODEL + '    rollout: { hold: 30d }\n'), ['models.yaml:8:22: models[0].rollout.hold: must be at most 24d']);
  const r = load(CLUSTER, MODEL + '    stopGrace: 24d\n    rollout: { hold: 0s }\n');
  assert.ok(r.ok);
  if (r.ok) assert.equal([r.config.models[0]!.stopGraceMs, r.config.models[0]!.rollout!.holdMs], [24 * 86_400_000, 0]);
});

test('defaults without a check give models no check; defaults with an empty check, or a model with one, is one problem, not an internal error', () => {
  const r = load(CLUSTER + 'defaults:\n  drainTimeout: 5m\n');
  assert.ok(r.ok);
  if (r.ok) assert.equal([r.config.models[0]!.check, r.config.models[0]!.drainTimeoutMs], [null, 300_000]);
  assert.equal(errors(CLUSTER + 'defaults:\n  check:\n'), ['cluster.yaml:12:3: defaults.check: must be object']);
  assert.equal(errors(CLUSTER, MODEL + '    check:\n'), ['models.yaml:8:5: models[0].check: must be a mapping (prompt, expect, timeout) or false']);
});

test('an allowArgs item that is not a string is one problem at that item, not an internal error; the others still compile', () => {
  const cluster = CLUSTER.replace('command: [vllm, serve]', 'command: [vllm, serve]\n    allowArgs: [1, "--x"]');
  assert.equal(errors(cluster), ['cluster.yaml:11:17: engines.vllm.allowArgs[0]: must be string']);
});

test.run();
