// allowArgs (docs/config.md): an engine's globs for the args models.yaml may
// pass it. Checked as written, before placeholders are filled in, so a model
// cannot smuggle a flag in through {model} or {port}.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLUSTER, MODELS, ONE_GPU_MODELS, TINY_CLUSTER, problemsOf, validConfig } from '../fixtures/index.js';

/** models.yaml with one block-style model whose extra lines are `extra`. */
const model = (extra: string) => MODELS + extra;
const STRICT = TINY_CLUSTER.replace(
  'vllm: { command: [vllm, serve] }',
  'vllm: { command: [vllm, serve], allowArgs: [--max-model-len, "[0-9]*", "--dtype=*"] }',
);

test('allowArgs: args that match a glob pass, as written (placeholders are not replaced first)', () => {
  const c = validConfig(STRICT, model('    args: [--max-model-len, "32768", --dtype=bfloat16]\n'));
  assert.equal(c.models[0]!.args, ['--max-model-len', '32768', '--dtype=bfloat16']);
  assert.equal(c.cluster.engines.vllm!.allowArgs, ['--max-model-len', '[0-9]*', '--dtype=*']);
});

test('allowArgs: an arg no glob matches is an error naming the model, the arg and the engine', () => {
  assert.equal(problemsOf(STRICT, model('    args: [--max-model-len, "32768", --trust-remote-code, --tokenizer, attacker/x]\n')), [
    "models.yaml:8:38: models[0].args[2]: model 'm': arg '--trust-remote-code' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
    "models.yaml:8:59: models[0].args[3]: model 'm': arg '--tokenizer' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
    "models.yaml:8:72: models[0].args[4]: model 'm': arg 'attacker/x' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
  assert.equal(problemsOf(STRICT, model('    args: ["{port}"]\n')), [
    "models.yaml:8:12: models[0].args[0]: model 'm': arg '{port}' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
});

test('allowArgs: [] allows no args at all; an engine without allowArgs allows any', () => {
  const none = TINY_CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: [] }');
  assert.equal(problemsOf(none, model('    args: [--x]\n')), [
    "models.yaml:8:12: models[0].args[0]: model 'm': arg '--x' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
  assert.equal(problemsOf(TINY_CLUSTER, model('    args: [--anything, goes]\n')), []);
});

test('a malformed allowArgs glob is an error at the glob', () => {
  assert.equal(problemsOf(TINY_CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: ["[0-9"] }'), ONE_GPU_MODELS), [
    'cluster.yaml:8:47: engines.vllm.allowArgs[0]: glob has a [ with no closing ]',
  ]);
});

test('an allowArgs item that is not a string is one problem at that item, not an internal error; the others still compile', () => {
  const cluster = CLUSTER.replace('command: [vllm, serve]', 'command: [vllm, serve]\n    allowArgs: [1, "--x"]');
  assert.equal(problemsOf(cluster, MODELS), ['cluster.yaml:11:17: engines.vllm.allowArgs[0]: must be string']);
});

test.run();
